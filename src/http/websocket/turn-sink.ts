// One turn's events on a Responses WebSocket: the shared relay (src/domain/passthrough/relay.ts)
// writes the provider's SSE frames to this sink as it would to an HTTP response, and each frame's
// data leaves as one text message, unchanged but for the turn's `stream_id`. Back-pressure is the
// socket's: past HIGH_WATER bytes buffered, a write waits for them to go out (the relay then stops
// reading the provider). The turn's signal aborts when the connection goes: the relay then stops
// and the hold is settled for what was delivered.
import type { WebSocket } from 'ws';
import { SseFramer } from '../../domain/passthrough/sse.ts';
import type { Sink } from '../../domain/sink.ts';

const HIGH_WATER = 1024 * 1024;
/** Events whose contents the turn reads (its id, output items and end); others are only relayed. */
const OBSERVED = /"response\.(created|output_item\.done|completed|incomplete|failed)"/;

export class TurnSink implements Sink {
  private readonly framer = new SseFramer();
  private readonly leaving = new AbortController();
  private begun = false;
  private ended = false;
  /** Bytes of events sent (the access line's). */
  bytes = 0;
  firstByteAt: bigint | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly streamId: string | undefined,
    private readonly observe: (event: Record<string, unknown>) => void,
  ) {
    const gone = () => this.leaving.abort();
    if (ws.readyState !== ws.OPEN) gone();
    ws.once('close', gone);
    this.leaving.signal.addEventListener('abort', () => ws.off('close', gone), { once: true });
  }

  get signal(): AbortSignal {
    return this.leaving.signal;
  }

  get started(): boolean {
    return this.begun;
  }

  get closed(): boolean {
    return this.ended || this.leaving.signal.aborted;
  }

  /** Ends the turn's hold on the connection (its close listener). */
  finish(): void {
    this.ended = true;
    if (!this.leaving.signal.aborted) this.leaving.abort();
  }

  start(): void {
    this.begun = true;
  }

  /** A whole JSON answer (a provider that ignored `stream: true`): sent as the terminal event it stands for. */
  send(_status: number, _headers: Record<string, string | number>, body: string | Uint8Array): void {
    if (this.closed) return;
    this.begun = true;
    const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
    let status: unknown;
    try {
      status = (JSON.parse(text) as { status?: unknown }).status;
    } catch {
      status = undefined; // the reader passed it as JSON: not reached
    }
    const type = status === 'incomplete' || status === 'failed' ? `response.${status}` : 'response.completed';
    void this.event(`{"type":${JSON.stringify(type)},"sequence_number":0,"response":${text}}`);
    this.ended = true;
  }

  write(chunk: string | Uint8Array): Promise<void> | undefined {
    if (this.closed) return undefined;
    const frames = this.framer.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
    if (frames === 'oversized') return undefined; // the relay cuts such a stream before writing it
    let wait: Promise<void> | undefined;
    for (const frame of frames) if (frame.data) wait = this.event(frame.data) ?? wait;
    return wait;
  }

  end(chunk?: string | Uint8Array): void {
    if (chunk?.length) void this.write(chunk);
    this.ended = true;
  }

  abort(): void {
    this.ended = true;
  }

  /** Sends one event's data as a message; a promise when the socket is behind. */
  event(data: string): Promise<void> | undefined {
    if (this.leaving.signal.aborted || this.ws.readyState !== this.ws.OPEN) return undefined;
    if (OBSERVED.test(data)) {
      try {
        const event: unknown = JSON.parse(data);
        if (event && typeof event === 'object' && !Array.isArray(event)) this.observe(event as Record<string, unknown>);
      } catch {
        // not JSON: relayed as it came, the client decides
      }
    }
    const text =
      this.streamId && data.startsWith('{') ? `{"stream_id":${JSON.stringify(this.streamId)}${/^\{\s*\}$/.test(data) ? '' : ','}${data.slice(1)}` : data;
    this.bytes += Buffer.byteLength(text);
    this.firstByteAt ??= process.hrtime.bigint();
    if (this.ws.bufferedAmount < HIGH_WATER) {
      this.ws.send(text);
      return undefined;
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        this.leaving.signal.removeEventListener('abort', done);
        resolve();
      };
      this.leaving.signal.addEventListener('abort', done, { once: true });
      this.ws.send(text, done);
    });
  }
}
