// What can go wrong on a passthrough endpoint (/v1/messages, /v1/chat/completions), before or
// instead of the provider's answer. Status codes and wire shapes: src/http/errors.ts.
import { sanitizeUpstreamMessage, upstreamErrorParts } from '../../providers/sanitize.ts';
import type { UpstreamError } from '../../providers/types.ts';
import type { Retirement } from '../discovery/service.ts';
import { Failure } from '../failure.ts';

export enum PassthroughError {
  ModelNotFound = 'model_not_found',
  /** The model exists but is served by another endpoint (its group). */
  WrongEndpoint = 'wrong_endpoint',
  /** No enabled provider serves the model right now. */
  NoProvider = 'no_provider',
  InsufficientBalance = 'insufficient_balance',
  /** The same refusal in the words of the Responses API (OpenAI's code, which Codex stops on). */
  InsufficientQuota = 'insufficient_quota',
  /** A field the gateway itself uses is out of range (max_tokens, n, ...). */
  InvalidRequest = 'invalid_request',
  /** A response id (previous_response_id, GET /v1/responses/{id}) the caller does not own, or none the gateway relayed. */
  ResponseNotFound = 'response_not_found',
  /** The provider refused: its status and error type are passed on, its text sanitised. */
  UpstreamError = 'upstream_error',
  UpstreamTimeout = 'upstream_timeout',
  UpstreamUnreachable = 'upstream_unreachable',
  UpstreamInvalidResponse = 'upstream_invalid_response',
  /** The provider refused the gateway's own credential: not the client's fault. */
  UpstreamAuthFailed = 'upstream_auth_failed',
}

const ENDPOINT_OF_GROUP: Record<string, string> = {
  messages: 'POST /v1/messages',
  chat: 'POST /v1/chat/completions',
  responses: 'POST /v1/responses',
  gemini: 'POST /v1beta/models/{model}:generateContent',
  video: 'POST /v1/videos',
};

export const passthroughFailures = {
  modelNotFound: (model: string, param: string | null = 'model') =>
    new Failure(PassthroughError.ModelNotFound, `The model \`${model}\` does not exist or you do not have access to it.`, { param }),
  /**
   * A retired model (catalogue `retired`) is not found, as the providers answer for their own
   * retired models (404 `model_not_found`, Anthropic's `not_found_error`), with a message that
   * says when it was retired and what to use instead.
   */
  modelRetired: (retired: Retirement, param: string | null = 'model') =>
    new Failure(
      PassthroughError.ModelNotFound,
      `The model \`${retired.model}\` was retired on ${retired.date} and no longer accepts requests${retired.replacement ? `; use \`${retired.replacement}\` instead` : ''}.`,
      { param },
    ),
  wrongEndpoint: (model: string, group: string) =>
    new Failure(PassthroughError.WrongEndpoint, `\`${model}\` is a ${group} model: call ${ENDPOINT_OF_GROUP[group] ?? 'its own endpoint'} instead.`, {
      param: 'model',
    }),
  noProvider: (model: string) => new Failure(PassthroughError.NoProvider, `No provider can serve \`${model}\` right now; nothing was charged.`),
  insufficientBalance: (what: string) =>
    new Failure(PassthroughError.InsufficientBalance, `Your balance is too low for this request (${what}). Top up, or ask for fewer output tokens.`),
  invalid: (param: string | null, message: string) => new Failure(PassthroughError.InvalidRequest, message, { param }),
  /** OpenAI's words for a response it does not know (another customer's looks the same). */
  responseNotFound: (id: string, param: string | null) =>
    new Failure(
      PassthroughError.ResponseNotFound,
      `${param === 'previous_response_id' ? 'Previous response' : 'Response'} with id '${id.slice(0, 200)}' not found.`,
      { param },
    ),

  /**
   * A provider's failure as the client sees it: a timeout or an unreachable provider in our words,
   * a refusal of our credential as ours, any other refusal with its status, type and headers
   * (`retry-after`, rate limits) and its text with the upstream model named as the public one.
   */
  fromUpstream(error: UpstreamError, models: { upstream: string; public: string }, param: string | null = null): Failure {
    if (error.kind === 'timeout') return new Failure(PassthroughError.UpstreamTimeout, '');
    if (error.kind !== 'status' || !error.status) return new Failure(PassthroughError.UpstreamUnreachable, '');
    if (error.status === 401 || error.status === 403) return new Failure(PassthroughError.UpstreamAuthFailed, ''); // our credential, not the client's
    const { type, message } = upstreamErrorParts(error.body);
    const clean = message ? sanitizeUpstreamMessage(message, [[models.upstream, models.public]]) : '';
    return new Failure(PassthroughError.UpstreamError, clean || `The provider answered ${error.status}.`, {
      param,
      upstream: { status: error.status, type: type ?? undefined },
      headers: error.headers,
    });
  },
};
