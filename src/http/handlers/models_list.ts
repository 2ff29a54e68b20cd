import type { PublicOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { modelToWire } from '../serialize/models.ts';

export async function models_list(ctx: RequestContext): Promise<Reply<PublicOperations, 'models_list'>> {
  const { discovery } = ctx.services;
  const owner = discovery.serviceName();
  return { status: 200, body: { object: 'list', data: discovery.visibleModels(ctx.caller).map((m) => modelToWire(m, owner)) } };
}
