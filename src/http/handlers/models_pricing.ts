import type { PublicOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { pricingToWire } from '../serialize/models.ts';

export async function models_pricing(ctx: RequestContext): Promise<Ok<PublicOperations, 'models_pricing'> | Failure> {
  const { discovery } = ctx.services;
  return {
    status: 200,
    body: { object: 'list', currency: discovery.currency(), data: discovery.visibleModels(ctx.caller).map(pricingToWire) },
  };
}
