import type { Failure } from '../../domain/failure.ts';
import type { PublicComponents } from '../../types.ts';
import { cacheable } from '../conditional.ts';
import type { JsonReply, PublicContext } from '../handler.ts';
import { pricingToWire } from '../serialize/models.ts';

export async function models_pricing(ctx: PublicContext<'models_pricing'>): Promise<JsonReply | Failure> {
  const { discovery } = ctx.services;
  const body: PublicComponents['schemas']['ModelPricingList'] = {
    object: 'list',
    currency: discovery.currency(),
    // At the calling key's prices: its customer's plan or overrides (a key's own price list).
    data: (await Promise.all(discovery.visibleModels(ctx.caller).map((model) => discovery.priced(ctx.caller, model)))).map(pricingToWire),
  };
  return cacheable(ctx, body);
}
