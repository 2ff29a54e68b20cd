// A recording WebSocket proxy for test/e2e/codex/record-fixtures.ts: Codex connects here as to a
// Responses endpoint; each upgrade's headers and every message Codex sends are recorded, and the
// connection is relayed to the gateway (with the gateway key in place of Codex's), whose answers go
// back unchanged. It only records; the gateway does the work.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';

export interface RecordedSocket {
  headers: http.IncomingHttpHeaders;
  path: string;
  /** What the client sent, parsed, in order. */
  messages: Array<Record<string, unknown>>;
}

/** Headers of the connection itself, which the relay's own client sets. */
const OWN = new Set(['host', 'connection', 'upgrade', 'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'authorization']);

export async function startWebSocketRecorder(gatewayUrl: string, key: string) {
  const recorded: RecordedSocket[] = [];
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on('upgrade', (req, socket, head) => {
    const record: RecordedSocket = { headers: req.headers, path: req.url ?? '/', messages: [] };
    recorded.push(record);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !OWN.has(name))) as Record<string, string>;
    const upstream = new WebSocket(`${gatewayUrl.replace(/^http/, 'ws')}${req.url}`, { headers: { ...headers, authorization: `Bearer ${key}` } });
    upstream.once('error', () => socket.destroy());
    upstream.once('open', () =>
      wss.handleUpgrade(req, socket, head, (client) => {
        client.on('message', (data) => {
          record.messages.push(JSON.parse(data.toString()) as Record<string, unknown>);
          upstream.send(data.toString());
        });
        upstream.on('message', (data) => client.send(data.toString()));
        client.on('close', () => upstream.close());
        upstream.on('close', () => client.close());
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    recorded,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}
