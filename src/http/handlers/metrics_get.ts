import type { StreamedReply, AdminContext } from '../handler.ts';

/** Prometheus text, not JSON: written through the sink (the dispatch step serialises JSON only). */
export async function metrics_get(ctx: AdminContext<'metrics_get'>): Promise<StreamedReply> {
  const text = await ctx.services.metrics.render();
  ctx.sink.start(200, { 'content-type': ctx.services.metrics.contentType, 'content-length': Buffer.byteLength(text) });
  ctx.sink.end(text);
  return { streamed: true };
}
