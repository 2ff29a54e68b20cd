// Sends a request to its routes in order: the next route only after a retryable failure, and only
// while nothing has reached the client (the caller relays the first answer that is not an error).
import type { ResolvedRoute } from '../../catalogue/store.ts';
import { callUpstream } from '../../providers/http.ts';
import { sanitizeForLog } from '../../providers/sanitize.ts';
import { UpstreamError } from '../../providers/types.ts';
import type { PassthroughDeps } from './core.ts';
import type { Inspected, PassthroughProtocol, PassthroughRequest } from './protocol.ts';

/** Tries the routes by priority; another route only while nothing has reached the client. */
export async function forward(
  deps: Pick<PassthroughDeps, 'logger' | 'metrics' | 'shutdown'>,
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
    const { timeouts } = route.provider;
    const began = performance.now();
    const answer =
      call instanceof UpstreamError
        ? call
        : await callUpstream({
            url: call.url,
            headers: call.headers,
            body: call.body,
            signal: client,
            also: deps.shutdown,
            connectMs: timeouts.connect_ms,
            proxy: route.provider.proxy,
            firstByteMs: inspected.stream ? timeouts.first_byte_ms : timeouts.response_ms,
            idleMs: timeouts.idle_ms,
            requestIdHeader: call.requestIdHeader,
            trace: { provider: route.provider.id, model: route.upstreamModel, group: protocol.group },
          });
    deps.metrics?.upstreamAttempt(route.provider.id, performance.now() - began, answer instanceof UpstreamError ? answer.kind : 'ok', answer.status);
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
