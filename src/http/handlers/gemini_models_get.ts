import type { Failure } from '../../domain/failure.ts';
import { passthroughFailures } from '../../domain/passthrough/errors.ts';
import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { geminiModelToWire } from '../serialize/gemini-models.ts';

/** Asked by an alias, answered under that name: the client keeps using the name it knows. */
export async function gemini_models_get(ctx: PublicContext<'gemini_models_get'>): Promise<Ok<PublicOperations, 'gemini_models_get'> | Failure> {
  const name = ctx.params.model;
  const model = ctx.services.gemini.model(ctx.caller, name);
  if (!model) return passthroughFailures.modelNotFound(name.slice(0, 200), null);
  return { status: 200, body: geminiModelToWire(model, name) };
}
