import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { legacyAmount } from '../serialize/account.ts';

/** `total_usage` in hundredths of the currency, all time: the dates are ignored (see the spec). */
export async function billing_usage_get(ctx: PublicContext<'billing_usage_get'>): Promise<Ok<PublicOperations, 'billing_usage_get'>> {
  const billing = await ctx.services.account.legacyBilling(ctx.caller);
  return { status: 200, body: { object: 'list', total_usage: legacyAmount(billing.used * 100n) } };
}
