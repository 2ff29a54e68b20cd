// The bounds every listener of the gateway puts on a client connection (docs/operations.md,
// "Connections"): the API port and the metrics port are made here, so a connection that sends
// nothing, trickles its head, idles after a response or comes past the cap costs the same on both.
import http from 'node:http';
import type { Duplex } from 'node:stream';

/** What a connection may cost; HTTP_HEADERS_TIMEOUT_MS and its neighbours in src/config/env.ts. */
export interface ConnectionLimits {
  /** A request head must be complete this long after its first byte (or the connection's opening, when none came). */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /**
   * A request answered before its whole body came (a 401 does not read it) has this long after
   * the answer for the rest to arrive, to be discarded; then its connection is closed. The body
   * reader bounds the bodies it reads itself (HTTP_BODY_IDLE_TIMEOUT_MS, the same value).
   */
  bodyIdleTimeoutMs: number;
  /** Connections past this many are closed as soon as they are accepted. */
  maxConnections: number;
}

/**
 * A server whose connections are bounded by `limits`. requestTimeout stays off: Node counts it
 * until the whole request has arrived, so it would cut a slow upload that still moves, and its
 * 408 would race the route's own answer; a stalled body is bounded by the body reader instead
 * (HTTP_BODY_IDLE_TIMEOUT_MS), and responses never are. headersTimeout also covers a connection
 * that sends nothing: Node starts its clock at accept. Node checks it on a timer (30 s by
 * default); checking often keeps the bound close, and costs little: only connections in the
 * middle of a request head or body are looked at. Past the cap, Node closes a connection at
 * accept, before reading or writing a byte: the cheapest refusal under a flood ('drop' counts it).
 */
export function createBoundedServer(
  limits: ConnectionLimits,
  options: Pick<http.ServerOptions, 'IncomingMessage' | 'ServerResponse' | 'requireHostHeader'>,
  handler: http.RequestListener,
): http.Server {
  const server = http.createServer(
    {
      requestTimeout: 0,
      headersTimeout: limits.headersTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, Math.max(50, Math.floor(limits.headersTimeoutMs / 4))),
      ...options,
    },
    handler,
  );
  server.maxConnections = limits.maxConnections;
  return server;
}

/**
 * Node discards the rest of an unread body before the next request, with no clock of its own: a
 * client trickling it would hold the connection for ever. Call when the response has closed.
 */
export function closeIfBodyStalls(req: http.IncomingMessage, socket: Duplex, limits: ConnectionLimits): void {
  if (!req.complete) setTimeout(() => req.complete || socket.destroy(), limits.bodyIdleTimeoutMs).unref();
}
