// The domain's Sink over a Node ServerResponse: back-pressure through 'drain', and one signal for
// "the client went away before the end".
import type { ServerResponse } from 'node:http';
import type { Sink } from '../domain/sink.ts';

export function responseSink(res: ServerResponse, baseHeaders: Record<string, string>): Sink {
  const abort = new AbortController();
  let ended = false;
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const gone = () => ended || res.destroyed || abort.signal.aborted;

  return {
    start(status, headers) {
      if (res.headersSent || gone()) return;
      res.writeHead(status, { ...baseHeaders, ...headers });
      res.flushHeaders();
    },
    write(chunk) {
      if (gone()) return Promise.resolve();
      if (res.write(chunk)) return Promise.resolve();
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
      if (!res.destroyed) res.end(chunk);
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
