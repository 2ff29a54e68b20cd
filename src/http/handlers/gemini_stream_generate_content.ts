import type { Reply, PublicContext } from '../handler.ts';
import { generate } from './gemini_generate_content.ts';

export const gemini_stream_generate_content = (ctx: PublicContext<'gemini_stream_generate_content'>): Promise<Reply> => generate(ctx, true);
