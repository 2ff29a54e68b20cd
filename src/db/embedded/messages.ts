// What the gateway and its embedded database process (./server.ts) say over the IPC channel.

/** The port in the socket's file name (`.s.PGSQL.<port>`), as pg names a Unix socket. */
export const SOCKET_PORT = 5432;

export type ChildMessage =
  /** Serving: pg connects to the Unix socket in `socketDir`. */
  | { type: 'ready'; socketDir: string }
  /** Could not start, or failed: one line for the operator; the process exits next. */
  | { type: 'error'; message: string };

/** Close PGlite cleanly and exit. */
export type ParentMessage = { type: 'close' };
