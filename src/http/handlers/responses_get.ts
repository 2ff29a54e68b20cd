import type { Reply, PublicContext } from '../handler.ts';
import { storedReply } from './responses_delete.ts';

export const responses_get = (ctx: PublicContext<'responses_get'>): Promise<Reply> => storedReply(ctx, 'get');
