// The domain's Sink over a Node ServerResponse: back-pressure through 'drain', and one signal for
// "the client went away before the end". `onBody` sees every piece of body written (the byte count
// and time to first byte of the access log).
import type { ServerResponse } from 'node:http';
import type { Sink } from '../domain/sink.ts';

export function responseSink(res: ServerResponse, onBody: (chunk: string | Uint8Array) => void = () => undefined): Sink {
  const abort = new AbortController();
  let ended = false;
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const gone = () => ended || res.destroyed || abort.signal.aborted;
  const observe = (chunk: string | Uint8Array | undefined) => {
    if (chunk?.length) onBody(chunk);
  };

  return {
    start(status, headers) {
      if (res.headersSent || gone()) return;
      res.writeHead(status, headers);
      res.flushHeaders();
    },
    send(status, headers, body) {
      if (res.headersSent || gone()) return;
      ended = true;
      observe(body);
      res.writeHead(status, headers);
      res.end(body);
    },
    write(chunk) {
      if (gone()) return undefined;
      observe(chunk);
      if (res.write(chunk)) return undefined;
      return new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    },
    end(chunk) {
      if (ended) return;
      ended = true;
      if (res.destroyed) return;
      observe(chunk);
      res.end(chunk);
    },
    abort() {
      if (ended) return;
      ended = true;
      res.destroy();
    },
    get started() {
      return res.headersSent;
    },
    get closed() {
      return gone();
    },
    signal: abort.signal,
  };
}
