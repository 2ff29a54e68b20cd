import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { alertSettingsToWire } from '../serialize/alerts.ts';

export async function alerts_get(ctx: PublicContext<'alerts_get'>): Promise<Ok<PublicOperations, 'alerts_get'>> {
  return { status: 200, body: alertSettingsToWire(await ctx.services.alerts.settings(ctx.caller.customerId)) };
}
