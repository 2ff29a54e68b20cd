// What reaches the provider: the client's bytes with `model` mapped to the route's upstream name
// and, on a streaming request, `stream_options.include_usage: true` merged in (the client's other
// stream options kept), so that every stream reports the usage it is billed by. Nothing else is
// re-serialised: number formats, key order, escapes and unknown fields go through as sent.
import { setTopLevelMember, spliceTopLevelString } from '../../shared/json-splice.ts';
import type { PassthroughRequest } from '../passthrough/protocol.ts';
import { clientWantsUsage, isRecord } from './fields.ts';

export function upstreamChatBody(request: PassthroughRequest, upstreamModel: string, stream: boolean): string {
  const raw = request.rawBody.toString('utf8');
  const text = spliceTopLevelString(raw, 'model', upstreamModel);
  if (text === undefined) return JSON.stringify(withUsage({ ...request.body, model: upstreamModel }, stream));
  // Upstreams refuse stream_options on a non-streaming request: never add it there.
  if (!stream || clientWantsUsage(request.body)) return text;
  const options = isRecord(request.body.stream_options) ? request.body.stream_options : {};
  return (
    setTopLevelMember(text, 'stream_options', JSON.stringify({ ...options, include_usage: true })) ??
    JSON.stringify(withUsage({ ...request.body, model: upstreamModel }, stream))
  );
}

/** The fallback for a body the splicer cannot read (not expected: the body parsed as an object). */
function withUsage(body: Record<string, unknown>, stream: boolean): Record<string, unknown> {
  if (!stream) return body;
  const options = isRecord(body.stream_options) ? body.stream_options : {};
  return { ...body, stream_options: { ...options, include_usage: true } };
}
