import type { Reply, RequestContext } from '../handler.ts';
import { storedReply } from './responses_delete.ts';

export const responses_input_items = (ctx: RequestContext): Promise<Reply> => storedReply(ctx, 'input_items');
