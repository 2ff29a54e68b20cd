import type { Reply, RequestContext } from '../handler.ts';
import { generate } from './gemini_generate_content.ts';

export const gemini_stream_generate_content = (ctx: RequestContext): Promise<Reply> => generate(ctx, true);
