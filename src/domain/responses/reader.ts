// Reads a response's usage on the side while its bytes pass to the client. Streams are
// `event:`/`data:` frames whose data carries `type` and `sequence_number`; the terminal event
// (`response.completed`, `response.incomplete`, `response.failed`) carries the Response with its
// usage. Lifecycle events (and a JSON answer) get the public model id in place of the upstream
// name; every other byte of every frame passes as received, unknown events included.
import { spliceFirstMember } from '../../shared/json-splice.ts';
import type { Inspected, UsageReader } from '../passthrough/protocol.ts';
import type { SseFrame } from '../passthrough/sse.ts';
import { isRecord } from './fields.ts';
import { ResponsesUsage } from './usage.ts';

export const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete', 'response.failed']);

export interface ResponsesReader extends UsageReader {
  /** The provider's id of the response, once an event or the answer named it. */
  responseId(): string | undefined;
  /** The Response's status as last seen (a JSON answer's, or the latest lifecycle event's). */
  status(): string | undefined;
  /** Input plus output tokens the provider reported (what a request chained to this response carries). */
  contextTokens(): number | undefined;
}

export interface ResponsesReaderOptions {
  inspected: Inspected;
  publicModel: string;
  upstreamModel: string;
  /** Called when the provider first names the response, and again once its usage is known. */
  onResponse?(): void;
}

/**
 * What the gateway sends when it cuts a stream after the 200: a `response.failed` event with
 * `error.code`, which Codex reads (a `server_error` is retried) and the SDKs surface as the
 * response's error. `sequence_number` follows the provider's last one.
 */
export function failedEvent(message: string, context: { id?: string; sequence: number; createdAt?: number; model: string }): string {
  // Every field OpenAI's published Response requires (the WebSocket test checks each message against
  // it); the request's own settings are not known here, so the defaults stand in. No usage: none came.
  const response = {
    ...(context.id ? { id: context.id } : {}),
    object: 'response',
    created_at: context.createdAt ?? Math.floor(Date.now() / 1000),
    status: 'failed',
    error: { code: 'server_error', message },
    incomplete_details: null,
    instructions: null,
    metadata: {},
    model: context.model,
    output: [],
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: 'auto',
    tools: [],
    top_p: null,
  };
  return `event: response.failed\ndata: ${JSON.stringify({ type: 'response.failed', sequence_number: context.sequence, response })}\n\n`;
}

export function responsesReader(options: ResponsesReaderOptions): ResponsesReader {
  const usage = new ResponsesUsage(options.inspected.inputTokens, options.inspected.maxOutputTokens);
  let id: string | undefined;
  let status: string | undefined;
  let createdAt: number | undefined;
  let sequence = -1;
  let terminal = false;
  let errored = false;

  const withPublicModel = (text: string): string =>
    options.upstreamModel === options.publicModel ? text : (spliceFirstMember(text, 'model', options.upstreamModel, options.publicModel) ?? text);

  const seeResponse = (response: Record<string, unknown>) => {
    const first = id === undefined && typeof response.id === 'string';
    if (typeof response.id === 'string') id = response.id;
    if (first) options.onResponse?.();
    if (typeof response.status === 'string') status = response.status;
    if (typeof response.created_at === 'number') createdAt = response.created_at;
  };

  return {
    json(text) {
      let answer: unknown;
      try {
        answer = JSON.parse(text);
      } catch {
        return undefined;
      }
      if (!isRecord(answer)) return undefined;
      seeResponse(answer);
      usage.observeResponse(answer);
      usage.deliveredItems(answer.output);
      terminal = true;
      if (usage.reported()) options.onResponse?.();
      return withPublicModel(text);
    },

    frame(frame: SseFrame) {
      if (!frame.data) return frame.raw; // comments and keep-alives
      let event: unknown;
      try {
        event = JSON.parse(frame.data);
      } catch {
        return frame.raw; // not ours to judge: the client's SDK decides
      }
      if (!isRecord(event)) return frame.raw;
      if (typeof event.sequence_number === 'number' && event.sequence_number > sequence) sequence = event.sequence_number;
      const type = typeof event.type === 'string' ? event.type : frame.event;
      if (type === 'error') {
        errored = true;
        return frame.raw;
      }
      if (typeof event.delta === 'string') {
        usage.deliveredText(event.delta);
        return frame.raw;
      }
      if (!isRecord(event.response)) return frame.raw;
      seeResponse(event.response);
      if (type !== undefined && TERMINAL_EVENTS.has(type)) {
        usage.observeResponse(event.response);
        terminal = true;
        if (usage.reported()) options.onResponse?.();
      }
      return withPublicModel(frame.raw);
    },

    complete: () => terminal,
    errored: () => errored,
    outputTokens: () => usage.outputTokens(),
    bill: (price) => usage.bill(price),
    streamError: (_type, message) => failedEvent(message, { id, sequence: sequence + 1, createdAt, model: options.publicModel }),
    responseId: () => id,
    status: () => status,
    contextTokens: () => usage.contextTokens(),
  };
}
