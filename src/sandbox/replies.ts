// How the text simulators answer, beyond a plain JSON body: a body cut halfway (the connection
// drops after half its bytes), and an event stream whose writes resolve once their bytes reach
// the socket, so a cut after them is a cut between events.
import type http from 'node:http';

/** Half of `body`'s bytes under a full content-length, then the connection drops. */
export function sendHalfThenDrop(res: http.ServerResponse, body: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.write(text.slice(0, text.length >> 1), () => res.destroy());
}

export interface EventStream {
  /** Resolves once `text` is handed to the socket (at once when the client has gone). */
  send(text: string): Promise<void>;
  /** The client went away before the stream ended. */
  readonly closed: boolean;
}

/** Starts a `text/event-stream` answer; `onClientGone` runs when the client leaves before the end. */
export function openEventStream(res: http.ServerResponse, headers: Record<string, string>, onClientGone: () => void): EventStream {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
  let closed = false;
  res.on('close', () => {
    if (!res.writableFinished) {
      closed = true;
      onClientGone();
    }
  });
  return {
    send: (text) => new Promise<void>((resolve) => (closed ? resolve() : res.write(text, () => resolve()))),
    get closed() {
      return closed;
    },
  };
}
