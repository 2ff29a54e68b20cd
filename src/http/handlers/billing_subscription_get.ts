import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { legacyAmount } from '../serialize/account.ts';

/** The legacy OpenAI shape chat clients read a balance from (see the spec's BillingSubscription). */
export async function billing_subscription_get(ctx: PublicContext<'billing_subscription_get'>): Promise<Ok<PublicOperations, 'billing_subscription_get'>> {
  const billing = await ctx.services.account.legacyBilling(ctx.caller);
  const limit = legacyAmount(billing.hardLimit);
  return {
    status: 200,
    body: {
      object: 'billing_subscription',
      has_payment_method: true,
      soft_limit_usd: limit,
      hard_limit_usd: limit,
      system_hard_limit_usd: limit,
      access_until: billing.accessUntil,
    },
  };
}
