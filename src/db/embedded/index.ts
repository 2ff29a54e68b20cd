// The embedded database as a child process (./server.ts) that speaks the PostgreSQL wire protocol,
// so the gateway reaches it through `pg` like any PostgreSQL. In-process PGlite ran Postgres and
// its file writes on the gateway's event loop: 4-8 ms of the gateway's CPU per request at 50
// concurrent requests, 1-1.7 ms with PGlite in its own process (README, "The embedded database").
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { assertNotHeld, DataDirInUseError } from './lock.ts';
import { SOCKET_PORT, type ChildMessage, type ParentMessage } from './messages.ts';

export { DataDirInUseError } from './lock.ts';

/** A clean close (a checkpoint) takes well under a second; past this the process is killed. */
const CLOSE_TIMEOUT_MS = 15_000;

export interface EmbeddedDatabase {
  /** How pg reaches it: a Unix socket's directory and port (`<host>/.s.PGSQL.<port>`). */
  connection: { host: string; port: number; user: string; database: string };
  /** Asks the process to close PGlite cleanly and waits for it to exit. */
  close(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Called if the database process ends without being asked to (a crash, a kill). */
  onUnexpectedExit?: (error: Error) => void;
}

/**
 * Starts the database process on `dir` (`memory://` for a throwaway one) and resolves once it
 * serves. Rejects with one clear message if it cannot: the directory is in use by another
 * gateway, or PGlite cannot open it.
 */
export async function startEmbeddedDatabase(dir: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  if (!dir.startsWith('memory://')) checkNotHeld(dir); // fail at once, before forking
  // server.ts under tsx, dist/src/db/embedded/server.js once built; fork passes on this process's
  // execArgv, so tsx's loader comes along when it is in use.
  const here = fileURLToPath(import.meta.url);
  const entry = path.join(path.dirname(here), `server${path.extname(here)}`);
  const child = fork(entry, [dir], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });

  // Keep the tail of its stderr (PGlite's own output, a crash) for the message if it dies.
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  let lastError: string | undefined;
  child.on('message', (message: ChildMessage) => {
    if (message.type === 'error') lastError = message.message;
  });
  // 'close', not 'exit': by then its last message and stderr have been read.
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const why = () => lastError ?? `the embedded database process exited (${describeExit(child)})${lastLine(stderr)}`;

  const connection = await new Promise<EmbeddedDatabase['connection']>((resolve, reject) => {
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'ready') resolve({ host: message.socketDir, port: SOCKET_PORT, user: 'postgres', database: 'postgres' });
    });
    child.once('error', reject);
    void exited.then(() => reject(new Error(why())));
  });

  let closing = false;
  void exited.then(() => {
    if (!closing) options.onUnexpectedExit?.(new Error(why()));
  });
  // The database never keeps the gateway alive by itself: if this process ends without close(),
  // the channel disconnects and the database process closes itself.
  unref(child);

  return {
    connection,
    async close() {
      if (closing) return exited;
      closing = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.ref(); // wait for it, even if nothing else keeps this process alive
      const killer = setTimeout(() => child.kill('SIGKILL'), CLOSE_TIMEOUT_MS);
      try {
        child.send({ type: 'close' } satisfies ParentMessage);
      } catch {
        // Already disconnected: it is closing by itself.
      }
      await exited;
      clearTimeout(killer);
    },
  };
}

function checkNotHeld(dir: string): void {
  try {
    assertNotHeld(dir);
  } catch (error) {
    if (error instanceof DataDirInUseError) throw error;
    throw new Error(`cannot use the embedded database's directory ${dir}: ${(error as Error).message}`);
  }
}

function unref(child: ChildProcess): void {
  child.unref();
  child.channel?.unref();
  (child.stderr as Readable & { unref?: () => void }).unref?.();
}

const describeExit = (child: ChildProcess) => (child.signalCode ? `signal ${child.signalCode}` : `code ${child.exitCode}`);

function lastLine(output: string): string {
  const line = output.trim().split('\n').pop()?.trim();
  return line ? `: ${line}` : '';
}
