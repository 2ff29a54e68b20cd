import type { Reply, RequestContext } from '../handler.ts';
import { storedReply } from './responses_delete.ts';

export const responses_get = (ctx: RequestContext): Promise<Reply> => storedReply(ctx, 'get');
