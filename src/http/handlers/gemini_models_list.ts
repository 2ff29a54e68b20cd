import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { geminiModelToWire } from '../serialize/gemini-models.ts';

/** The key's gemini models and the listed aliases of them, on one page. */
export async function gemini_models_list(ctx: PublicContext<'gemini_models_list'>): Promise<Ok<PublicOperations, 'gemini_models_list'>> {
  const { discovery } = ctx.services;
  const models = [
    ...discovery
      .visibleModels(ctx.caller)
      .filter((m) => m.group === 'gemini')
      .map((m) => geminiModelToWire(m)),
    ...discovery
      .listedAliases(ctx.caller)
      .filter(({ model }) => model.group === 'gemini')
      .map(({ alias, model }) => geminiModelToWire(model, alias)),
  ];
  return { status: 200, body: { models } };
}
