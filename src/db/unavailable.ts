// Whether an error means "the database cannot be reached right now" (an outage, a stall, a
// restart) rather than a fault of the gateway or of the request: the answer is then a 503 the
// client may retry, not a 500.

/** Raised (through the queries of the connection) when a query outlives the timeout. */
export class QueryTimeoutError extends Error {
  override name = 'QueryTimeoutError';
  constructor(ms: number) {
    super(`a database query took more than ${ms} ms; its connection was closed`);
  }
}

/**
 * This process could not renew its lease on the database (its heartbeat) for the fencing time:
 * it opens no hold until it can, since a sweeper may soon take its holds for a dead process's.
 */
export class LeaseNotRenewedError extends Error {
  override name = 'LeaseNotRenewedError';
  constructor() {
    super('this process has not renewed its heartbeat lately; it opens no holds until it does');
  }
}

/** Node socket errors of a connection that could not be made or was lost. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception), 53 (insufficient
 * resources: disk full, out of memory, too many connections), 57P (shutting down, crash
 * recovery, not yet accepting connections).
 */
const UNAVAILABLE_STATE = /^(08[0-9A-Z]{3}|53[0-9A-Z]{3}|57P[0-9A-Z]{2})$/;

/**
 * pg's own messages for a connection that ended, broke or never answered; knex puts the statement
 * before them (`ROLLBACK - Client has encountered...`, `insert into ... - Connection terminated`).
 */
const PG_MESSAGES =
  /(?:^|\s-\s)(?:Connection terminated|Connection ended unexpectedly|Client has encountered a connection error|timeout expired|timeout exceeded when trying to connect|Query read timeout)/;

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if (cause instanceof QueryTimeoutError || cause instanceof LeaseNotRenewedError || cause.name === 'KnexTimeoutError') return true;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || UNAVAILABLE_STATE.test(code))) return true;
    // The embedded database's socket file gone (its process ended); not any missing file.
    if (code === 'ENOENT' && (cause as { syscall?: unknown }).syscall === 'connect') return true;
    if (PG_MESSAGES.test(cause.message)) return true;
  }
  return false;
}
