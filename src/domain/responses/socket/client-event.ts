// A message a client sends on a Responses WebSocket (OpenAI's `ResponsesClientEventResponseCreate`):
// `{"type": "response.create", ...the body of POST /v1/responses}`, with `stream_id` (a lane name)
// and `generate: false` (a warm-up) as WebSocket-only envelope fields. The turn's body for the
// provider is the message without its envelope, with `stream: true` (the bridge asks the provider's
// HTTP endpoint for events); the client's other bytes are kept as sent.
import { removeTopLevelMember, setTopLevelMember } from '../../../shared/json-splice.ts';
import type { Failure } from '../../failure.ts';
import { passthroughFailures } from '../../passthrough/errors.ts';
import { isRecord } from '../fields.ts';

export interface ClientTurn {
  /** The body for POST /responses: the envelope removed, `stream: true`. */
  body: Record<string, unknown>;
  /** The same, as text: the client's bytes but for those members. */
  text: string;
  /** The lane the client named, echoed on the turn's events. */
  streamId: string | undefined;
  /** `generate: false`: a warm-up, answered by the gateway without a provider call. */
  warmup: boolean;
}

const STREAM_ID = /^[A-Za-z0-9_.-]{1,256}$/;
const ENVELOPE = ['type', 'stream_id', 'generate'] as const;

/** The turn a message asks for, or why it is refused (the connection stays open either way). */
export function readClientEvent(data: string): ClientTurn | Failure {
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return passthroughFailures.invalid(null, 'The message is not valid JSON; send one JSON object per message.');
  }
  if (!isRecord(message)) return passthroughFailures.invalid(null, 'The message must be a JSON object such as {"type": "response.create", ...}.');
  if (message.type !== 'response.create') {
    const named = typeof message.type === 'string' ? `\`${message.type.slice(0, 100)}\`` : 'missing';
    return passthroughFailures.invalid('type', `Unsupported client event type (${named}); this socket takes \`response.create\`.`);
  }
  const streamId = message.stream_id;
  if (streamId !== undefined && (typeof streamId !== 'string' || !STREAM_ID.test(streamId)))
    return passthroughFailures.invalid('stream_id', 'stream_id must be 1 to 256 characters of A-Z, a-z, 0-9, `_`, `.` and `-`.');
  if (message.generate !== undefined && typeof message.generate !== 'boolean') return passthroughFailures.invalid('generate', 'generate must be a boolean.');
  if (message.background === true)
    return passthroughFailures.invalid('background', 'background is not supported over WebSocket; use POST /v1/responses with background: true.');
  const body: Record<string, unknown> = { ...message, stream: true };
  for (const key of ENVELOPE) delete body[key];
  return { body, text: withoutEnvelope(data, message) ?? JSON.stringify(body), streamId, warmup: message.generate === false };
}

/** The message's text without the envelope members and with `stream: true`; undefined if it cannot be cut so. */
function withoutEnvelope(text: string, message: Record<string, unknown>): string | undefined {
  let out: string | undefined = text;
  for (const key of ENVELOPE) {
    if (out === undefined) return undefined;
    if (key in message) out = removeTopLevelMember(out, key, JSON.stringify(message[key]));
  }
  return out === undefined ? undefined : setTopLevelMember(out, 'stream', 'true');
}
