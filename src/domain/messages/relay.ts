// Relays a successful upstream response to the client: JSON in one piece, SSE frame by frame as
// frames complete, with usage read on the side. Returns once the exchange is over, however it ended.
import type { ServerResponse } from 'node:http';
import type { UpstreamResponse } from '../../providers/types.ts';
import { SseFramer } from './sse.ts';
import type { UsageTracker } from './usage.ts';

export interface RelayResult {
  /** How the exchange ended: completed, upstream error event, upstream cut/idle, client gone. */
  ending: 'complete' | 'error_event' | 'upstream_cut' | 'idle_timeout' | 'client_gone';
  firstByteAt: number | undefined;
}

export interface RelayOptions {
  res: ServerResponse;
  upstream: UpstreamResponse;
  usage: UsageTracker;
  publicModel: string;
  requestId: string;
  idleMs: number;
  /** Aborts the upstream request (client gone, idle). */
  abort(): void;
}

const MAX_JSON_BYTES = 64 * 1024 * 1024;

/**
 * Reads the whole JSON answer and returns it, model rewritten, for the caller to send once the
 * request is settled (so the wallet already shows the charge when the client reads the answer).
 */
export async function readJson(options: RelayOptions): Promise<{ text: string } | 'invalid'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of options.upstream.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_JSON_BYTES) return 'invalid';
    chunks.push(chunk);
  }
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return 'invalid';
  }
  options.usage.observe(message.usage, true);
  options.usage.deliveredContent(message.content);
  message.model = options.publicModel; // the client named the public id; the upstream name stays ours
  return { text: JSON.stringify(message) };
}

export function sendJson(res: ServerResponse, requestId: string, text: string): number {
  if (!res.destroyed) {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'request-id': requestId });
    res.end(text);
  }
  return Date.now();
}

/**
 * Relays the stream until the upstream ends, fails, idles out or the client leaves. It leaves the
 * client response open: the caller settles first, then ends it.
 */
export function relayStream(options: RelayOptions): Promise<RelayResult> {
  const { res, upstream, usage } = options;
  const framer = new SseFramer();
  let firstByteAt: number | undefined;
  let ending: RelayResult['ending'] | undefined;

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no', // reverse proxies must not buffer the stream
    'request-id': options.requestId,
  });
  res.flushHeaders();

  return new Promise<RelayResult>((resolve) => {
    let idle: NodeJS.Timeout | undefined;
    const finish = (how: RelayResult['ending']) => {
      if (ending) return;
      ending = how;
      clearTimeout(idle);
      upstream.body.removeAllListeners('data');
      if (how === 'client_gone' || how === 'idle_timeout') options.abort();
      resolve({ ending: how, firstByteAt });
    };
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => finish('idle_timeout'), options.idleMs);
    };
    armIdle();

    res.on('close', () => {
      if (!res.writableFinished) finish('client_gone');
    });
    upstream.body.on('data', (chunk: Buffer) => {
      armIdle();
      let out = '';
      for (const frame of framer.push(chunk)) {
        out += inspect(frame.event, frame.data, frame.raw);
      }
      if (!out) return;
      firstByteAt ??= Date.now();
      if (!res.write(out)) {
        upstream.body.pause(); // back-pressure: the client reads slower than the provider writes
        res.once('drain', () => upstream.body.resume());
      }
    });
    upstream.body.on('end', () => finish(ending ?? (sawError ? 'error_event' : sawStop ? 'complete' : 'upstream_cut')));
    upstream.body.on('error', () => finish(sawError ? 'error_event' : 'upstream_cut'));

    let sawStop = false;
    let sawError = false;
    // Reads usage and delivered content; rewrites only message_start (its model), passes the rest.
    function inspect(event: string | undefined, data: string, raw: string): string {
      if (event === 'ping' || !data) return raw;
      let payload: Record<string, unknown>;
      try {
        payload = JSON.parse(data);
      } catch {
        return raw;
      }
      switch (event ?? payload.type) {
        case 'message_start': {
          const message = payload.message as Record<string, unknown> | undefined;
          usage.observe(message?.usage, false);
          if (!message) return raw;
          message.model = options.publicModel;
          return `event: message_start\ndata: ${JSON.stringify(payload)}\n\n`;
        }
        case 'content_block_start':
          usage.delivered(payload.content_block);
          return raw;
        case 'content_block_delta':
          usage.delivered(payload.delta);
          return raw;
        case 'message_delta':
          usage.observe(payload.usage, true);
          return raw;
        case 'message_stop':
          sawStop = true;
          return raw;
        case 'error':
          sawError = true;
          return raw;
        default:
          return raw; // unknown events pass through untouched
      }
    }
  });
}
