import type { PublicOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { alertSettingsToWire } from '../serialize/alerts.ts';

export async function alerts_get(ctx: RequestContext): Promise<Ok<PublicOperations, 'alerts_get'>> {
  return { status: 200, body: alertSettingsToWire(await ctx.services.alerts.settings(ctx.caller!.customerId)) };
}
