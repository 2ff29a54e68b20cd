// The embedded database's own process, forked by ./index.ts: PGlite on the data directory (or in
// memory), served over the PostgreSQL wire protocol on a Unix socket that only this user can reach.
// Postgres compiled to WebAssembly runs synchronously; here it does so off the gateway's event loop.
//
// The gateway decides when this process ends: it asks (a `close` message), or it dies and the IPC
// channel disconnects. SIGINT and SIGTERM are ignored, because a terminal's Ctrl-C or a process
// group's SIGTERM reaches this process too while the gateway still needs the database to drain.
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { durableOptions, syncTree } from './durable-fs.ts';
import { acquireLock, DataDirInUseError, holderForThisProcess } from './lock.ts';
import { SOCKET_PORT, type ChildMessage, type ParentMessage } from './messages.ts';

const dir = process.argv[2] ?? 'memory://';
const inMemory = dir.startsWith('memory://');

let db: PGlite | undefined;
let server: PGLiteSocketServer | undefined;
let socketDir: string | undefined;
let releaseLock: (() => void) | undefined;
let exiting = false;

/** Resolves once the message is handed over, so that exiting next does not drop it. */
const send = (message: ChildMessage) =>
  new Promise<void>((resolve) => {
    if (process.connected) process.send!(message, undefined, {}, () => resolve());
    else resolve();
  });

async function start(): Promise<void> {
  if (!inMemory) {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      releaseLock = await acquireLock(dir, holderForThisProcess());
    } catch (error) {
      if (error instanceof DataDirInUseError) throw error;
      throw new Error(`cannot use the embedded database's directory ${dir}: ${messageOf(error)}`);
    }
  }
  const created = !inMemory && !fs.existsSync(path.join(dir, 'PG_VERSION'));
  try {
    db = await PGlite.create(inMemory ? { dataDir: dir } : durableOptions(dir));
  } catch (error) {
    throw new Error(`cannot open the embedded database in ${dir}: ${messageOf(error)}`);
  }
  if (created) syncTree(dir);
  // A fresh private directory (mkdtemp makes it 0700): PGlite has no authentication, so the
  // socket's directory is what keeps other local users out.
  socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-db-'));
  const socketPath = path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`);
  // One connection: the server interleaves the protocol messages of several connections.
  server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 1 });
  await server.start();
  fs.chmodSync(socketPath, 0o600);
  // The server keeps its net.Server private; without it, answers just go out in more writes.
  (server as unknown as { server?: net.Server }).server?.on('connection', gatherWrites);
  await send({ type: 'ready', socketDir });
}

/**
 * The server writes every piece of every answer on its own: about ten writes per statement, each
 * a system call here and a 'data' event for pg in the gateway. PGlite answers the messages a
 * client sent together (Parse, Bind, Execute, Sync) in one run of promise callbacks, so writes
 * held until the next tick leave together. Measured: 82 -> 19 writes per gateway request; pg's
 * CPU per one-row select in the gateway -15-30%, latency unchanged.
 */
function gatherWrites(socket: net.Socket): void {
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  let corked = false;
  socket.write = ((...args: unknown[]) => {
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(() => {
        corked = false;
        socket.uncork();
      });
    }
    return write(...args);
  }) as net.Socket['write'];
}

/** Closes PGlite cleanly (a shutdown checkpoint), frees the lock and the socket, and exits. */
async function exit(code: number): Promise<void> {
  if (exiting) return;
  exiting = true;
  try {
    await server?.stop();
    if (db && !db.closed) await db.close();
  } catch (error) {
    await send({ type: 'error', message: `closing the embedded database failed: ${messageOf(error)}` });
    code = code || 1;
  }
  releaseLock?.();
  if (socketDir) fs.rmSync(socketDir, { recursive: true, force: true });
  process.exit(code);
}

function fail(error: unknown): void {
  void send({ type: 'error', message: messageOf(error) }).then(() => exit(1));
}

/**
 * A write to a client that closed its connection (the gateway gave up on a stalled query): the
 * socket server has already rolled back what the client left open and dropped its listeners, so
 * the error surfaces here. The database is fine; the next connection is served.
 */
const clientGone = (error: unknown): boolean => ['EPIPE', 'ECONNRESET'].includes((error as NodeJS.ErrnoException).code ?? '');

// The message alone: the parent shows it as one line, with no stack trace.
const messageOf = (error: unknown): string => (error instanceof Error ? error.message || error.name : String(error));

process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
process.on('disconnect', () => void exit(0));
process.on('message', (message: ParentMessage) => {
  if (message.type === 'close') void exit(0);
});
process.on('uncaughtException', (error) => (clientGone(error) ? undefined : fail(error)));
process.on('unhandledRejection', fail);
start().catch(fail);
