// How the domain writes a response it produces piece by piece (SSE streams, proxied bytes) without
// knowing HTTP: src/http/sink.ts implements it over a ServerResponse.

export interface Sink {
  /**
   * Sends the status and headers at once (the client sees the response begin before its first
   * piece). Nothing is written before; everything after is body.
   */
  start(status: number, headers: Record<string, string | number>): void;
  /** A whole answer known at once: status, headers and body leave together, in one write. */
  send(status: number, headers: Record<string, string | number>, body: string | Uint8Array): void;
  /**
   * Writes a piece of the body. Undefined when the client keeps up; else (back-pressure) a promise
   * that resolves once it has drained what it was sent. Never rejects (a client gone is `closed`).
   */
  write(chunk: string | Uint8Array): Promise<void> | undefined;
  /** Ends the body (with a last piece). Idempotent; a no-op once the client has gone. */
  end(chunk?: string | Uint8Array): void;
  /**
   * Cuts the response after start(): the client sees a broken transfer, never a short body passed
   * off as complete (a proxied file whose upstream broke mid-way).
   */
  abort(): void;
  /** True once start() was called. */
  readonly started: boolean;
  /** True once the client went away before end(), or the response ended. */
  readonly closed: boolean;
  /** Aborted when the client goes away before the end. */
  readonly signal: AbortSignal;
}
