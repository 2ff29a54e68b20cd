// The domain's Sink over a Node ServerResponse: back-pressure through 'drain', and one signal for
// "the client went away before the end". `onBody` sees every piece of body written (the byte count
// and time to first byte of the access log). A class, not an object literal per response: its
// methods and getters live once on the prototype (a literal with getters gets a hidden class of its
// own per request, measured as ~0.5 KB per open stream and megamorphic property reads).
import type { ServerResponse } from 'node:http';
import type { Sink } from '../domain/sink.ts';

class ResponseSink implements Sink {
  private readonly leaving = new AbortController();
  private ended = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly onBody: ((chunk: string | Uint8Array) => void) | undefined,
  ) {
    res.once('close', () => {
      if (!res.writableFinished) this.leaving.abort();
    });
  }

  get signal(): AbortSignal {
    return this.leaving.signal;
  }

  get started(): boolean {
    return this.res.headersSent;
  }

  get closed(): boolean {
    return this.ended || this.res.destroyed || this.leaving.signal.aborted;
  }

  private observe(chunk: string | Uint8Array | undefined): void {
    if (chunk?.length) this.onBody?.(chunk);
  }

  start(status: number, headers: Record<string, string | number>): void {
    if (this.res.headersSent || this.closed) return;
    this.res.writeHead(status, headers);
    this.res.flushHeaders();
  }

  send(status: number, headers: Record<string, string | number>, body: string | Uint8Array): void {
    if (this.res.headersSent || this.closed) return;
    this.ended = true;
    this.observe(body);
    this.res.writeHead(status, headers);
    this.res.end(body);
  }

  write(chunk: string | Uint8Array): Promise<void> | undefined {
    if (this.closed) return undefined;
    this.observe(chunk);
    if (this.res.write(chunk)) return undefined;
    const res = this.res;
    return new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }

  end(chunk?: string | Uint8Array): void {
    if (this.ended) return;
    this.ended = true;
    if (this.res.destroyed) return;
    this.observe(chunk);
    this.res.end(chunk);
  }

  abort(): void {
    if (this.ended) return;
    this.ended = true;
    this.res.destroy();
  }
}

export function responseSink(res: ServerResponse, onBody?: (chunk: string | Uint8Array) => void): Sink {
  return new ResponseSink(res, onBody);
}
