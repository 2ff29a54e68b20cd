import { passthroughFailures } from '../../domain/passthrough/errors.ts';
import type { Failure } from '../../domain/failure.ts';
import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { modelToAnthropic, modelToWire, wantsAnthropicShape } from '../serialize/models.ts';

export async function models_retrieve(ctx: PublicContext<'models_retrieve'>): Promise<Ok<PublicOperations, 'models_retrieve'> | Failure> {
  const { discovery } = ctx.services;
  const modelId = ctx.params.model_id;
  const model = discovery.findModel(ctx.caller, modelId);
  if (!model) {
    const retired = discovery.retirement(ctx.caller, modelId);
    return retired ? passthroughFailures.modelRetired(retired, null) : passthroughFailures.modelNotFound(modelId.slice(0, 200), null);
  }
  // Asked by an alias, answered under that name: the client keeps using the name it knows.
  if (wantsAnthropicShape(ctx.headers)) return { status: 200, body: modelToAnthropic(model, modelId) };
  return { status: 200, body: modelToWire(model, discovery.serviceName(), modelId) };
}
