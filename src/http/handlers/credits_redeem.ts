import { Failure } from '../../domain/failure.ts';
import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { redemptionToWire } from '../serialize/redeem.ts';

export async function credits_redeem(ctx: PublicContext<'credits_redeem'>): Promise<Ok<PublicOperations, 'credits_redeem'> | Failure> {
  const result = await ctx.services.redeem.redeem(ctx.caller, ctx.body.code, ctx.clientAddress, ctx.requestId);
  return result instanceof Failure ? result : { status: 200, body: redemptionToWire(result, ctx.services.discovery.currency()) };
}
