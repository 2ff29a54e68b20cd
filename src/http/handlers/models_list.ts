import type { PublicOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { modelToWire } from '../serialize/models.ts';

export async function models_list(ctx: RequestContext): Promise<Ok<PublicOperations, 'models_list'> | Failure> {
  const { discovery } = ctx.services;
  const owner = discovery.serviceName();
  return { status: 200, body: { object: 'list', data: discovery.visibleModels(ctx.caller).map((m) => modelToWire(m, owner)) } };
}
