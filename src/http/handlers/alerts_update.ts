import { Failure } from '../../domain/failure.ts';
import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { alertSettingsToWire } from '../serialize/alerts.ts';

export async function alerts_update(ctx: PublicContext<'alerts_update'>): Promise<Ok<PublicOperations, 'alerts_update'> | Failure> {
  const settings = await ctx.services.alerts.update(ctx.caller.customerId, ctx.body);
  return settings instanceof Failure ? settings : { status: 200, body: alertSettingsToWire(settings) };
}
