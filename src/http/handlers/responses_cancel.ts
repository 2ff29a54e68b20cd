import type { Reply, RequestContext } from '../handler.ts';
import { storedReply } from './responses_delete.ts';

export const responses_cancel = (ctx: RequestContext): Promise<Reply> => storedReply(ctx, 'cancel');
