// The video adapters by upstream protocol: the one lookup the video domain uses (from protocols.ts).
// With tracing on, each submission and poll runs in a span of its own (its upstream calls are the
// span's children): inside the request's trace for a submission made while answering, a trace of
// its own for the poller's.
import type { ProviderProtocol } from '../catalogue/types.ts';
import { PROTOCOLS } from './protocols.ts';
import { taskSpans } from './task-spans.ts';
import { UpstreamError } from './types.ts';
import type { VideoAdapter } from './video.ts';

export const videoAdapters: Partial<Record<ProviderProtocol, VideoAdapter>> = Object.fromEntries(
  Object.entries(PROTOCOLS).flatMap(([protocol, module]) => (module.video ? [[protocol, traced(module.video)]] : [])),
);

const failure = (error: UpstreamError): Record<string, string> => ({ 'gateway.video.outcome': error.status ? `${error.kind} ${error.status}` : error.kind });

/** The adapter with its submit and poll in spans when tracing is on; everything else is the adapter's own. */
function traced(adapter: VideoAdapter): VideoAdapter {
  const wrapped = Object.create(adapter) as VideoAdapter;
  wrapped.submit = (provider, upstreamModel, request) => {
    const hooks = taskSpans.current;
    if (!hooks) return adapter.submit(provider, upstreamModel, request);
    return hooks.videoTask(
      'submit',
      { provider: provider.id, model: upstreamModel },
      () => adapter.submit(provider, upstreamModel, request),
      (outcome) => (outcome instanceof UpstreamError ? failure(outcome) : { 'gateway.video.outcome': 'submitted' }),
    );
  };
  wrapped.poll = (provider, upstreamId) => {
    const hooks = taskSpans.current;
    if (!hooks) return adapter.poll(provider, upstreamId);
    return hooks.videoTask(
      'poll',
      { provider: provider.id },
      () => adapter.poll(provider, upstreamId),
      (outcome) => (outcome instanceof UpstreamError ? failure(outcome) : { 'gateway.video.status': outcome.status }),
    );
  };
  return wrapped;
}
