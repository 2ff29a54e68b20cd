import type { PublicContext, Reply } from '../handler.ts';
import { passthroughRequest } from './messages_create.ts';

export const gemini_generate_content = (ctx: PublicContext<'gemini_generate_content'>): Promise<Reply> => generate(ctx, false);

/** generateContent and streamGenerateContent: the model from the path, the body as sent. */
export async function generate(ctx: PublicContext<'gemini_generate_content' | 'gemini_stream_generate_content'>, stream: boolean): Promise<Reply> {
  const request = { ...passthroughRequest(ctx), model: ctx.params.model };
  const result = await ctx.services.gemini.generate(request, ctx.sink, { stream, sse: ctx.query.alt === 'sse' });
  if (result.failure) return { failure: result.failure, log: result.log };
  return { streamed: true, log: result.log, ...(result.settled ? { settled: result.settled } : {}) };
}
