// A plain WebSocket client (the `ws` package) for the Responses WebSocket: opens GET /v1/responses
// upgraded, collects every message, and waits for a turn's last event or the close.
import WebSocket from 'ws';

export interface TestSocket {
  ws: WebSocket;
  /** Every message received, parsed. */
  events: Array<Record<string, any>>;
  /** The 101's headers. */
  headers: Record<string, string | string[] | undefined>;
  send(message: Record<string, unknown>): void;
  /** The events of the next turn, up to its last (`response.completed`/`.incomplete`/`.failed` or `error`). */
  turn(message?: Record<string, unknown>): Promise<Array<Record<string, any>>>;
  closed: Promise<{ code: number; reason: string }>;
}

const LAST = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

export function socketUrl(gatewayUrl: string): string {
  return `${gatewayUrl.replace(/^http/, 'ws')}/v1/responses`;
}

/** Opens a socket; rejects with the HTTP status and body when the upgrade is refused. */
export function openSocket(gatewayUrl: string, key: string, headers: Record<string, string> = {}): Promise<TestSocket> {
  const ws = new WebSocket(socketUrl(gatewayUrl), { headers: { authorization: `Bearer ${key}`, ...headers }, perMessageDeflate: false });
  const events: Array<Record<string, any>> = [];
  let taken = 0;
  const waiters: Array<() => void> = [];
  ws.on('message', (data) => {
    events.push(JSON.parse(data.toString()) as Record<string, any>);
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const wake of waiters.splice(0)) wake();
    }),
  );
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body, headers: res.headers })));
    });
    ws.once('error', reject);
    ws.once('upgrade', (res) => {
      const socket: TestSocket = {
        ws,
        events,
        headers: res.headers,
        closed,
        send: (message) => ws.send(JSON.stringify(message)),
        async turn(message) {
          if (message) socket.send(message);
          const deadline = Date.now() + 30_000;
          for (;;) {
            const end = events.findIndex((e, i) => i >= taken && LAST.has(e.type));
            if (end !== -1) {
              const turn = events.slice(taken, end + 1);
              taken = end + 1;
              return turn;
            }
            if (ws.readyState !== WebSocket.OPEN || Date.now() > deadline)
              throw new Error(`no end of turn (${events.length - taken} events, state ${ws.readyState})`);
            await new Promise<void>((wake) => {
              waiters.push(wake);
              setTimeout(wake, 1_000);
            });
          }
        },
      };
      ws.once('open', () => resolve(socket));
    });
  });
}

/** Polls `condition` until it holds; throws naming `what` after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
