import type { ResolvedModel } from '../../catalogue/store.ts';
import type { PublicComponents } from '../../types.ts';

/** The Gemini API's Model: `models/` and the name it is called by, its limits and the methods served. */
export const geminiModelToWire = (model: ResolvedModel, name = model.id): PublicComponents['schemas']['GeminiModel'] => ({
  name: `models/${name}`,
  baseModelId: model.id,
  displayName: model.display_name ?? model.id,
  ...(model.context_window ? { inputTokenLimit: model.context_window } : {}),
  ...(model.max_output_tokens ? { outputTokenLimit: model.max_output_tokens } : {}),
  supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
});
