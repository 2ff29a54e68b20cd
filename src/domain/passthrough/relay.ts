// Relays a successful upstream answer to the client: JSON in one piece, SSE frame by frame as
// frames complete, with usage read on the side. Returns once the exchange is over, however it
// ended; the caller settles. Memory per stream is bounded (one frame at most), and a provider that
// streams past the request's output bound is cut (see OVERRUN below).
import type { UpstreamResponse } from '../../providers/index.ts';
import type { Sink } from '../sink.ts';
import type { PassthroughProtocol, UsageReader } from './protocol.ts';
import { SseFramer } from './sse.ts';

export type Ending =
  /** The answer ended as the protocol says a complete answer ends. */
  | 'complete'
  /** The provider sent an error event after the 200. */
  | 'error_event'
  /** The provider's connection ended or broke before the end. */
  | 'upstream_cut'
  | 'idle_timeout'
  | 'client_gone'
  /** The gateway was shutting down past its grace period. */
  | 'shutdown'
  /** The provider streamed past the request's output bound. */
  | 'overrun'
  /** A JSON answer that was not one (not JSON, too large). */
  | 'invalid';

export interface Relayed {
  ending: Ending;
  /** When the first byte went to the client (ms since epoch). */
  firstByteAt: number | undefined;
}

export interface RelayOptions {
  sink: Sink;
  upstream: UpstreamResponse;
  reader: UsageReader;
  protocol: PassthroughProtocol;
  idleMs: number;
  /** Output tokens the request allows; past OVERRUN of it the stream is cut. */
  maxOutputTokens: number;
  shutdown: AbortSignal;
  /** Called when the first byte reaches the client, then at most every CHECKPOINT_MS. */
  onProgress(): void;
  baseHeaders: Record<string, string>;
}

const MAX_JSON_BYTES = 64 * 1024 * 1024;
/** Tolerance over the output bound before a stream is cut: estimates from text are rough. */
export const overrunLimit = (maxOutputTokens: number): number => Math.ceil(maxOutputTokens * 1.25) + 64;
const CHECKPOINT_MS = 1_000;

/** Reads a whole JSON answer (bounded) and returns the text to send, or undefined. */
export async function readJson(upstream: UpstreamResponse, reader: UsageReader): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of upstream.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_JSON_BYTES) {
        upstream.body.destroy();
        return undefined;
      }
      chunks.push(chunk);
    }
  } catch {
    return undefined; // cut mid-body or idle: not an answer
  }
  return reader.json(Buffer.concat(chunks, size).toString('utf8'));
}

export function relayStream(options: RelayOptions): Promise<Relayed> {
  const { sink, upstream, reader, protocol } = options;
  const framer = new SseFramer();
  const limit = overrunLimit(options.maxOutputTokens);
  const streamError = (type: string, message: string) => reader.streamError?.(type, message) ?? protocol.streamError(type, message);
  let firstByteAt: number | undefined;
  let lastCheckpoint = 0;
  let ending: Ending | undefined;

  sink.start(200, { ...protocol.streamHeaders, ...options.baseHeaders });

  return new Promise<Relayed>((resolve) => {
    let idle: NodeJS.Timeout | undefined;
    /** Writes waiting for the client to drain; the provider is not read meanwhile. */
    let backlog: Promise<void> | undefined;
    const behind = (writes: Promise<void>): Promise<void> => {
      const mine: Promise<void> = writes.then(() => {
        if (backlog !== mine) return;
        backlog = undefined;
        if (!ending) upstream.body.resume();
      });
      return mine;
    };
    const send = (out: string) => {
      if (backlog) {
        backlog = behind(backlog.then(() => sink.write(out)));
        return;
      }
      const drained = sink.write(out);
      if (!drained) return;
      // Back-pressure: the client reads slower than the provider writes, so stop reading.
      upstream.body.pause();
      backlog = behind(drained);
    };
    const finish = (how: Ending, errorFrame?: string) => {
      if (ending) return;
      ending = how;
      clearTimeout(idle);
      upstream.body.removeListener('data', onData);
      options.shutdown.removeEventListener('abort', onShutdown);
      if (how !== 'complete' && how !== 'error_event') upstream.body.destroy(); // aborts the provider's request
      // Whatever waits goes out first, then the closing error frame, then the end.
      const closing = errorFrame ?? (how === 'complete' || how === 'error_event' ? reader.end?.() : undefined);
      void (backlog ?? Promise.resolve()).then(async () => {
        if (closing && !sink.closed) await sink.write(closing);
        sink.end();
        resolve({ ending: how, firstByteAt });
      });
    };
    // One timer per stream, pushed back by every chunk (refresh, not a new timer per chunk).
    const armIdle = () => {
      if (ending) return;
      if (idle) return void idle.refresh();
      idle = setTimeout(() => finish('idle_timeout', streamError('timeout_error', 'The provider stopped sending; the answer was cut.')), options.idleMs);
    };
    const onShutdown = () => finish('shutdown', streamError('overloaded_error', 'The gateway is restarting; the answer was cut. Retry the request.'));

    const onData = (chunk: Buffer) => {
      armIdle();
      const frames = framer.push(chunk);
      if (frames === 'oversized') return finish('upstream_cut', streamError('api_error', 'The provider sent an event too large to relay; the answer was cut.'));
      let out = '';
      for (const frame of frames) out += reader.frame(frame);
      if (reader.outputTokens() > limit) {
        return finish('overrun', streamError('api_error', 'The provider sent more output than max_tokens allows; the answer was cut.'));
      }
      if (!out) return;
      send(out); // the bytes first; the checkpoint is bookkeeping
      if (firstByteAt === undefined) {
        firstByteAt = lastCheckpoint = Date.now();
        options.onProgress();
      } else if (Date.now() - lastCheckpoint >= CHECKPOINT_MS) {
        lastCheckpoint = Date.now();
        options.onProgress();
      }
    };

    if (options.shutdown.aborted) return onShutdown();
    options.shutdown.addEventListener('abort', onShutdown, { once: true });
    sink.signal.addEventListener('abort', () => finish('client_gone'), { once: true });
    upstream.body.on('data', onData);
    upstream.body.on('end', () => {
      if (reader.errored()) return finish('error_event');
      if (reader.complete()) return finish('complete');
      finish('upstream_cut', streamError('api_error', 'The provider ended the stream before the answer was complete.'));
    });
    upstream.body.on('error', () => {
      if (ending) return;
      if (sink.signal.aborted) return finish('client_gone');
      if (reader.errored()) return finish('error_event');
      finish('upstream_cut', streamError('api_error', 'The connection to the provider broke; the answer was cut.'));
    });
    armIdle();
  });
}
