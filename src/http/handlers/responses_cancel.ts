import type { Reply, PublicContext } from '../handler.ts';
import { storedReply } from './responses_delete.ts';

export const responses_cancel = (ctx: PublicContext<'responses_cancel'>): Promise<Reply> => storedReply(ctx, 'cancel');
