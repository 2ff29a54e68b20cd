import type { Reply, PublicContext } from '../handler.ts';
import { storedReply } from './responses_delete.ts';

export const responses_input_items = (ctx: PublicContext<'responses_input_items'>): Promise<Reply> => storedReply(ctx, 'input_items');
