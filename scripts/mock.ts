// npm run mock: Prism mocks of the bundled contracts for QA and SDK users. The public API answers
// on MOCK_PORT (default 4010) and the admin API on MOCK_ADMIN_PORT (default 4011; `off` skips it).
//
// Prism picks a response by the Accept header, but the official SDKs send `Accept:
// application/json` even when they ask for a stream (`"stream": true` in the body). A thin front
// in this process reads the body of POST /v1/messages, /v1/chat/completions and /v1/responses and asks Prism for
// the `text/event-stream` example when the client asked for a stream; everything else passes as
// is. A chat stream that asks for `stream_options.include_usage` gets the example with the usage
// chunk. The OpenAI SDK downloads a video with `Accept: application/binary`, which names no media
// type of the contract (the gateway itself answers the provider's, video/mp4 or image/webp): the
// front asks Prism for the download's own types instead of letting it answer 406. POST /v1/videos
// gets its 202 example, or the quote (200) when the body says `dry_run: true`.
// `Prefer: code=404` or `Prefer: example=<name>` picks another example. Ctrl-C or SIGTERM stops
// the front and every Prism process it started.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { ROOT_DIR } from '../src/config.ts';

const host = '127.0.0.1';
const publicPort = Number(process.env.MOCK_PORT ?? 4010);
const adminPort = process.env.MOCK_ADMIN_PORT === 'off' ? undefined : Number(process.env.MOCK_ADMIN_PORT ?? 4011);
const STREAMING_PATHS = new Set(['/v1/messages', '/v1/chat/completions', '/v1/responses']);
const children: ChildProcess[] = [];

function prism(bundle: string, port: number): ChildProcess {
  const bin = path.join(ROOT_DIR, 'node_modules/.bin/prism');
  const child = spawn(bin, ['mock', path.join(ROOT_DIR, 'generated', bundle), '-h', host, '-p', String(port)], { stdio: ['ignore', 'inherit', 'inherit'] });
  children.push(child);
  child.on('exit', (code) => {
    if (!stopping) {
      process.stderr.write(`mock: prism for ${bundle} exited (${code}); stopping\n`);
      stop(1);
    }
  });
  return child;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Forwards to Prism, asking for the SSE example when the body asks for a stream. */
function front(target: number): http.Server {
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = { ...req.headers };
      const pathname = (req.url ?? '/').split('?')[0]!;
      const asked = req.method === 'POST' && STREAMING_PATHS.has(pathname) ? streamAsked(body) : undefined;
      if (asked?.stream) headers.accept = 'text/event-stream';
      if (asked?.usage && pathname === '/v1/chat/completions' && !headers.prefer) headers.prefer = 'example=stream_with_usage';
      // POST /v1/videos answers a quote (200) only to `dry_run: true`; a create is accepted (202).
      if (req.method === 'POST' && pathname === '/v1/videos' && !headers.prefer) headers.prefer = `code=${dryRun(body) ? 200 : 202}`;
      if (req.method === 'GET' && DOWNLOAD.test(pathname) && /application\/binary/.test(String(headers.accept ?? '')))
        headers.accept = 'video/mp4, image/webp, application/octet-stream';
      const upstream = http.request({ host, port: target, method: req.method, path: req.url, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', (error) => {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `mock backend: ${error.message}`, type: 'api_error', code: 'mock_unavailable', param: null } }));
      });
      upstream.end(body);
    });
  });
}

/** The video download, whatever the task id. */
const DOWNLOAD = /^\/v1\/videos\/[^/]+\/content$/;

/** A video request asking for a quote, as JSON or as a multipart field. */
function dryRun(body: Buffer): boolean {
  const text = body.toString('utf8');
  try {
    const value = (JSON.parse(text) as { dry_run?: unknown }).dry_run;
    return value === true || value === 'true';
  } catch {
    return /name="dry_run"\r\n(?:[^\r\n]+\r\n)*\r\ntrue\r\n/.test(text);
  }
}

/** Whether the body asks for a stream, and for the usage chunk of a chat stream. */
function streamAsked(body: Buffer): { stream: boolean; usage: boolean } {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { stream?: unknown; stream_options?: { include_usage?: unknown } };
    return { stream: parsed.stream === true, usage: parsed.stream === true && parsed.stream_options?.include_usage === true };
  } catch {
    return { stream: false, usage: false };
  }
}

let stopping = false;
function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    process.exit(code);
  }, 1500).unref();
  void Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null))).then(() => process.exit(code));
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

/** Resolves once something accepts connections on `port` (Prism takes a few seconds to start). */
async function listening(port: number): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, host, () => (socket.end(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (open || stopping) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const inner = await freePort();
prism('openapi.json', inner);
if (adminPort !== undefined) prism('admin.json', adminPort);
await listening(inner);
const server = front(inner);
server.on('error', (error: NodeJS.ErrnoException) => {
  process.stderr.write(`mock: cannot listen on ${host}:${publicPort}: ${error.code === 'EADDRINUSE' ? 'the port is in use (set MOCK_PORT)' : error.message}\n`);
  stop(1);
});
server.listen(publicPort, host, () => {
  process.stdout.write(
    `mock: public API on http://${host}:${publicPort}${adminPort !== undefined ? `, admin API on http://${host}:${adminPort}` : ''} (Ctrl-C stops both)\n`,
  );
});
