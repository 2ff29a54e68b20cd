// Reads a chat completion's usage on the side while its bytes pass to the client. Streams are
// `data:` frames of chunks ending with `data: [DONE]`; the gateway asked the provider for the
// usage chunk (see body.ts), so when the client did not, the client is shown the stream it would
// have had: the usage-only chunk (`choices: []`) dropped and the `"usage":null` members the option
// adds to every other chunk removed. Each chunk's `model` becomes the public id; every other byte
// passes as received, unknown fields and frames included.
import { removeTopLevelMember, spliceTopLevelString } from '../../shared/json-splice.ts';
import type { Inspected, UsageReader } from '../passthrough/protocol.ts';
import type { SseFrame } from '../passthrough/sse.ts';
import { isRecord } from './fields.ts';
import { ChatUsage } from './usage.ts';

export interface ChatReaderOptions {
  inspected: Inspected;
  /** The client itself asked for the usage chunk. */
  clientWantsUsage: boolean;
  /** Choices the request asked for (`n`). */
  choices: number;
  publicModel: string;
  upstreamModel: string;
}

export function chatReader(options: ChatReaderOptions): UsageReader {
  const usage = new ChatUsage(options.inspected.inputTokens, options.inspected.maxOutputTokens);
  const finished = new Set<unknown>();
  let done = false;
  let errored = false;

  /** A chunk's or an answer's JSON text as the client gets it. */
  const forClient = (text: string, payload: Record<string, unknown>): string => {
    let out =
      options.upstreamModel === options.publicModel || typeof payload.model !== 'string'
        ? text
        : (spliceTopLevelString(text, 'model', options.publicModel) ?? text);
    if (!options.clientWantsUsage && payload.usage === null) out = removeTopLevelMember(out, 'usage', 'null') ?? out;
    return out;
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
      usage.observe(answer.usage);
      usage.tier(answer.service_tier);
      if (Array.isArray(answer.choices)) for (const choice of answer.choices) if (isRecord(choice)) usage.deliveredContent(choice.message);
      return forClient(text, answer);
    },

    frame(frame: SseFrame) {
      const data = frame.data;
      if (!data) return frame.raw; // comments and keep-alives
      if (data.trim() === '[DONE]') {
        done = true;
        return frame.raw;
      }
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        return frame.raw; // not ours to judge: the client's SDK decides
      }
      if (!isRecord(chunk)) return frame.raw;
      if (chunk.error !== undefined && chunk.error !== null) {
        errored = true; // the OpenAI SDK raises an APIError on `data: {"error": ...}`
        return frame.raw;
      }
      if (isRecord(chunk.usage)) usage.observe(chunk.usage);
      usage.tier(chunk.service_tier);
      const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
      for (const choice of choices) {
        if (!isRecord(choice)) continue;
        usage.deliveredContent(choice.delta);
        if (choice.finish_reason !== null && choice.finish_reason !== undefined) finished.add(choice.index);
      }
      if (!options.clientWantsUsage && choices.length === 0 && isRecord(chunk.usage)) return ''; // the chunk the client did not ask for
      const rewritten = forClient(data, chunk);
      if (rewritten === data || data.includes('\n')) return frame.raw;
      const at = frame.raw.indexOf(data);
      return at === -1 ? frame.raw : frame.raw.slice(0, at) + rewritten + frame.raw.slice(at + data.length);
    },

    // `[DONE]` ends an answer; some compatible providers omit it after every choice has finished.
    complete: () => done || finished.size >= options.choices,
    errored: () => errored,
    outputTokens: () => usage.outputTokens(),
    bill: (price) => usage.bill(price),
  };
}
