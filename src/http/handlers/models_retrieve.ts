import type { PublicOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { problems, renderProblem, type ErrorBody } from '../problem.ts';
import { modelToWire } from '../serialize/models.ts';

export async function models_retrieve(ctx: RequestContext): Promise<Reply<PublicOperations, 'models_retrieve'>> {
  const { discovery } = ctx.services;
  const modelId = ctx.params.model_id ?? '';
  const model = discovery.findModel(ctx.caller, modelId);
  if (!model) return { status: 404, body: renderProblem(problems.modelNotFound(modelId), '/v1/models', ctx.requestId) as ErrorBody };
  return { status: 200, body: modelToWire(model, discovery.serviceName()) };
}
