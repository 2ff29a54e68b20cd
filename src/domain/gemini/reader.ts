// Reads a Gemini answer's usage on the side while its bytes pass to the client. The provider is
// always asked for SSE (`data: {GenerateContentResponse}` frames); a client that asked for SSE
// (`alt=sse`, as the SDKs and Gemini CLI do) gets the frames as received, one that did not gets
// what Google sends then: the same chunks as one JSON array written as they arrive (`[`, chunks
// joined by `,\r\n`, `]`). A stream ends complete once a candidate has a `finishReason` (or the
// prompt was blocked); an `{"error": ...}` chunk is the provider's error after the 200. Each
// chunk's `modelVersion` naming the upstream model becomes the public id; every other byte passes.
import { spliceTopLevelString } from '../../shared/json-splice.ts';
import type { Inspected, UsageReader } from '../passthrough/protocol.ts';
import { isRecord } from './fields.ts';
import { GeminiUsage } from './usage.ts';

/** How the client gets the answer: one JSON object, SSE frames, or the JSON-array stream. */
export type GeminiFraming = 'json' | 'sse' | 'array';

export interface GeminiReaderOptions {
  inspected: Inspected;
  framing: GeminiFraming;
  publicModel: string;
  upstreamModel: string;
}

/** Google's error body, as a stream ends with it (a JSON object, framed by the caller). */
export function googleStreamError(type: string, message: string): string {
  const [code, status] = type === 'timeout_error' ? [504, 'DEADLINE_EXCEEDED'] : type === 'overloaded_error' ? [503, 'UNAVAILABLE'] : [500, 'INTERNAL'];
  return JSON.stringify({ error: { code, message, status } });
}

export function geminiReader(options: GeminiReaderOptions): UsageReader {
  const usage = new GeminiUsage(options.inspected.inputTokens, options.inspected.maxOutputTokens);
  let finished = false;
  let errored = false;
  /** Array framing: whether the opening `[` went out. */
  let opened = false;

  const forClient = (text: string, chunk: Record<string, unknown>): string =>
    options.upstreamModel !== options.publicModel && chunk.modelVersion === options.upstreamModel
      ? (spliceTopLevelString(text, 'modelVersion', options.publicModel) ?? text)
      : text;

  /** A chunk's usage, content and ending. */
  const observe = (chunk: Record<string, unknown>) => {
    if (chunk.error !== undefined && chunk.error !== null) errored = true;
    usage.observe(chunk.usageMetadata);
    const candidates = Array.isArray(chunk.candidates) ? chunk.candidates : [];
    for (const candidate of candidates) {
      usage.deliveredContent(candidate);
      if (isRecord(candidate) && typeof candidate.finishReason === 'string') finished = true;
    }
    if (isRecord(chunk.promptFeedback) && chunk.promptFeedback.blockReason !== undefined) finished = true;
  };

  const element = (json: string): string => {
    const prefix = opened ? ',\r\n' : '[';
    opened = true;
    return prefix + json;
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
      observe(answer);
      return forClient(text, answer);
    },

    frame(frame) {
      const data = frame.data;
      if (!data) return options.framing === 'sse' ? frame.raw : ''; // comments and keep-alives
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        return options.framing === 'sse' ? frame.raw : ''; // not ours to judge in SSE; not an array element
      }
      if (!isRecord(chunk)) return options.framing === 'sse' ? frame.raw : '';
      observe(chunk);
      const rewritten = forClient(data, chunk);
      if (options.framing === 'array') return element(rewritten);
      if (rewritten === data || data.includes('\n')) return frame.raw;
      const at = frame.raw.indexOf(data);
      return at === -1 ? frame.raw : frame.raw.slice(0, at) + rewritten + frame.raw.slice(at + data.length);
    },

    end: () => (options.framing !== 'array' ? '' : opened ? ']' : '[]'),
    streamError(type, message) {
      const error = googleStreamError(type, message);
      return options.framing === 'array' ? `${element(error)}]` : `data: ${error}\r\n\r\n`;
    },
    complete: () => finished,
    errored: () => errored,
    outputTokens: () => usage.outputTokens(),
    bill: (price) => usage.bill(price),
  };
}
