// The token-count endpoints (messages count_tokens, responses input_tokens, Gemini countTokens):
// the provider's count of a request's input, free of charge (nothing is reserved; the request log
// records it). A provider that cannot count (none serves the model, an outage, a rate limit) gets
// the gateway's own estimate, marked in the log; its refusal of the request itself is the
// client's to see.
import type { ResolvedModel, ResolvedRoute } from '../../catalogue/store.ts';
import type { LogFields } from '../../logs/request-logs.ts';
import { callProviderJson, type ProviderRequest, UpstreamError } from '../../providers/index.ts';
import type { Failure } from '../failure.ts';

export type Counted<C> = { counted: C; log: LogFields } | { failure: Failure; log: LogFields };

export interface CountCall<C> {
  model: ResolvedModel;
  /** The route that can count, if any serves the model. */
  route: ResolvedRoute | undefined;
  /** The provider's count request (the provider's wire module builds it). */
  request(route: ResolvedRoute): ProviderRequest | Promise<ProviderRequest | UpstreamError>;
  /** The count in the provider's answer; undefined when it holds none. */
  read(answer: unknown): C | undefined;
  /** The gateway's own count, when the provider gives none. */
  estimate(): C;
  /** A 4xx of the provider (not a rate limit) as the client sees it; undefined to estimate instead. */
  refused(error: UpstreamError, route: ResolvedRoute): Failure | undefined;
}

/** A count answer is small: anything past this is not one. */
const MAX_COUNT_BYTES = 1024 * 1024;

export async function countByProvider<C>(call: CountCall<C>): Promise<Counted<C>> {
  const estimate = (): Counted<C> => ({ counted: call.estimate(), log: { model: call.model.id, usage_estimated: true } });
  const { route } = call;
  if (!route) return estimate();
  const request = await call.request(route);
  if (request instanceof UpstreamError) return estimate();
  const answer = await callProviderJson(route.provider, request, {
    wait: 'first-byte',
    limit: MAX_COUNT_BYTES,
    client: AbortSignal.timeout(route.provider.timeouts.response_ms),
  });
  const log = { model: call.model.id, provider: route.provider.id };
  if (answer instanceof UpstreamError) {
    // The provider's verdict on the request itself is the client's to see; outages are not.
    const verdict = answer.kind === 'status' && answer.status && answer.status < 500 && answer.status !== 429;
    const failure = verdict ? call.refused(answer, route) : undefined;
    return failure ? { failure, log } : estimate();
  }
  const counted = call.read(answer.json);
  if (counted === undefined) return estimate();
  return { counted, log: { ...log, upstream_request_id: answer.upstreamRequestId ?? null } };
}

/** A token count as providers report one: a non-negative whole number. */
export const tokenCount = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined);
