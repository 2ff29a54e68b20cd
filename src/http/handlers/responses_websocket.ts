import { Failure } from '../../domain/failure.ts';
import { HttpError } from '../errors.ts';
import type { Reply, RequestContext } from '../handler.ts';

/** GET /v1/responses: a Responses WebSocket (src/http/websocket/), opened once the key passed the authenticate step. */
export async function responses_websocket(ctx: RequestContext): Promise<Reply> {
  if (!ctx.upgrade) return new Failure(HttpError.WebSocketRequired, '', { headers: { upgrade: 'websocket' } });
  return ctx.upgrade.accept(ctx.caller!, ctx.requestId) ?? { streamed: true };
}
