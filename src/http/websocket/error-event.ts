// A refused turn on a Responses WebSocket, as OpenAI's WebSocket mode says it (`ResponseWsError`):
// `{"type": "error", "status", "error": {type, code, message, param, headers?}}`, the status and
// error body POST /v1/responses would have answered with. The connection stays open.
import type { Failure } from '../../domain/failure.ts';
import { PassthroughError } from '../../domain/passthrough/errors.ts';
import { renderFailure, type ErrorBody } from '../errors.ts';

export interface ErrorEvent {
  text: string;
  status: number;
  type: string;
}

export function errorEvent(failure: Failure, requestId: string, streamId: string | undefined): ErrorEvent {
  const reply = renderFailure(failure, 'openai', requestId);
  const error = { ...(reply.body as ErrorBody).error };
  // OpenAI's code for a previous response it does not know (Codex starts over with the whole transcript).
  if (failure.code === PassthroughError.ResponseNotFound && error.param === 'previous_response_id') error.code = 'previous_response_not_found';
  const headers = Object.keys(reply.headers).length > 0 ? { headers: reply.headers } : {};
  const event = { type: 'error', ...(streamId ? { stream_id: streamId } : {}), status: reply.status, error: { ...error, ...headers } };
  return { text: JSON.stringify(event), status: reply.status, type: error.type };
}
