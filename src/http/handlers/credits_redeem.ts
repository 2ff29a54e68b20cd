import { Failure } from '../../domain/failure.ts';
import type { PublicOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { redemptionToWire } from '../serialize/redeem.ts';

type Body = PublicOperations['credits_redeem']['requestBody']['content']['application/json'];

export async function credits_redeem(ctx: RequestContext<Body>): Promise<Ok<PublicOperations, 'credits_redeem'> | Failure> {
  const result = await ctx.services.redeem.redeem(ctx.caller!, ctx.body.code, ctx.clientAddress, ctx.requestId);
  return result instanceof Failure ? result : { status: 200, body: redemptionToWire(result, ctx.services.discovery.currency()) };
}
