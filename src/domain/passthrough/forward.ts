// Sends a request to its routes in order: the next route only after a retryable failure, and only
// while nothing has reached the client (the caller relays the first answer that is not an error).
// Each attempt is the provider's call (providers/call.ts), which counts it in the upstream metrics.
import type { ResolvedRoute } from '../../catalogue/store.ts';
import type { Logger } from '../../logger.ts';
import type { UpstreamMetrics } from '../../metrics/hooks.ts';
import { callProvider, sanitizeForLog, UpstreamError } from '../../providers/index.ts';
import type { Inspected, PassthroughProtocol, PassthroughRequest } from './protocol.ts';

export interface ForwardDeps {
  logger: Logger;
  /** Aborted when the process stops waiting for open requests at shutdown: streams are cut. */
  shutdown: AbortSignal;
  metrics?: Pick<UpstreamMetrics, 'upstreamFailover'>;
}

/** Tries the routes by priority; another route only while nothing has reached the client. */
export async function forward(
  deps: ForwardDeps,
  protocol: PassthroughProtocol,
  request: PassthroughRequest,
  routes: readonly ResolvedRoute[],
  inspected: Inspected,
  client: AbortSignal,
) {
  let last: { error: UpstreamError; route: ResolvedRoute } | undefined;
  for (const route of routes) {
    if (last) deps.metrics?.upstreamFailover(last.route.provider.id);
    // A call the protocol could not build (a provider's token could not be minted) fails like one sent.
    const call = await protocol.upstream(request, route, inspected);
    const answer =
      call instanceof UpstreamError ? call : await callProvider(route.provider, call, inspected.stream ? 'first-byte' : 'whole-answer', client, deps.shutdown);
    if (!(answer instanceof UpstreamError)) return { response: answer, route };
    last = { error: answer, route };
    deps.logger.warn(
      {
        request_id: request.requestId,
        provider: route.provider.id,
        kind: answer.kind,
        status: answer.status,
        upstream_request_id: answer.upstreamRequestId,
        os_error: answer.osError,
        upstream_error: sanitizeForLog(answer.body),
      },
      'upstream attempt failed',
    );
    if (!answer.retryable || client.aborted || deps.shutdown.aborted) break;
  }
  return last!;
}
