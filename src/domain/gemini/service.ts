// The Gemini API (Gemini CLI, the google-genai SDKs): generateContent and streamGenerateContent on
// the shared passthrough flow, countTokens free, and the model a URL names. `models/{model}` names
// a public id (`sandbox/gemini-pro`, sent as `models/sandbox/gemini-pro`) or an alias
// (`gemini-3.1-pro-preview`); a bare Google name with no alias of its own stands for the public id
// `gemini/<name>`, the catalogue's id of Google's own models.
import type { Caller } from '../../customers/service.ts';
import type { ResolvedModel } from '../../catalogue/store.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import { Failure } from '../failure.ts';
import type { Counted } from '../passthrough/count.ts';
import type { Passthrough, PassthroughResult } from '../passthrough/core.ts';
import { modelFor } from '../passthrough/lookup.ts';
import type { PassthroughRequest } from '../passthrough/protocol.ts';
import type { Sink } from '../sink.ts';
import { countGeminiTokens, type GeminiCount } from './count-tokens.ts';
import { checkGemini } from './fields.ts';
import { geminiProtocol } from './protocol.ts';
import type { GeminiFraming } from './reader.ts';

export interface GeminiService {
  /** `sse`: the client asked for SSE (`alt=sse`); otherwise a stream is the JSON array Google sends. */
  generate(request: PassthroughRequest, sink: Sink, options: { stream: boolean; sse: boolean }): Promise<PassthroughResult>;
  countTokens(request: PassthroughRequest): Promise<Counted<GeminiCount>>;
  /** The gemini model a URL's `{model}` names, if the caller may see it. */
  model(caller: Caller | null, name: string): ResolvedModel | undefined;
}

export function createGeminiService(deps: { passthrough: Passthrough; discovery: DiscoveryService }): GeminiService {
  /** The name as the catalogue knows it (an id, alias or pattern): itself, or `gemini/<name>` for a bare Google model name. */
  const known = (caller: Caller | null, name: string): string =>
    (deps.discovery.resolveModel(caller, name) ?? deps.discovery.retirement(caller, name) ?? name.includes('/')) ? name : `gemini/${name}`;

  function model(caller: Caller | null, name: string): ResolvedModel | undefined {
    const found = deps.discovery.resolveModel(caller, known(caller, name))?.model;
    return found?.group === 'gemini' ? found : undefined;
  }

  return {
    generate(request, sink, options) {
      const framing: GeminiFraming = options.sse ? 'sse' : 'array';
      const protocol = geminiProtocol(options.stream ? 'streamGenerateContent' : 'generateContent', framing);
      return deps.passthrough.run(protocol, { ...request, model: known(request.caller, request.model ?? '') }, sink);
    },

    async countTokens(request) {
      const named = modelFor(deps.discovery, request.caller, known(request.caller, request.model ?? ''), 'gemini');
      if (named instanceof Failure) return { failure: named, log: {} };
      const invalid = checkGemini(request.body, true);
      if (invalid instanceof Failure) return { failure: invalid, log: { model: named.model.id } };
      return countGeminiTokens(request, named.model);
    },

    model,
  };
}
