import type { Failure } from '../../domain/failure.ts';
import type { PublicComponents } from '../../types.ts';
import { cacheable } from '../conditional.ts';
import type { JsonReply, RequestContext } from '../handler.ts';
import { modelToWire } from '../serialize/models.ts';

export async function models_list(ctx: RequestContext): Promise<JsonReply | Failure> {
  const { discovery } = ctx.services;
  const owner = discovery.serviceName();
  const data = [
    ...discovery.visibleModels(ctx.caller).map((m) => modelToWire(m, owner)),
    ...discovery.listedAliases(ctx.caller).map(({ alias, model }) => modelToWire(model, owner, alias)),
  ];
  const body: PublicComponents['schemas']['ModelList'] = { object: 'list', data };
  return cacheable(ctx, body);
}
