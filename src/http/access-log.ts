// What is written about a request once it is over: the access line and the metrics as soon as the
// handler is done, and the request log row once the request's charge is durable (its settlement
// gives the final usage and cost).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.ts';
import { newLogEntry, type LogFields, type RequestLogEntry, type RequestLogs } from '../logs/request-logs.ts';
import type { RequestMetrics } from '../metrics/hooks.ts';
import { CORS_PREFLIGHT } from './cors.ts';
import { CONSOLE_ASSET } from './steps/console.ts';
import type { Exchange } from './exchange.ts';
import { loggedSessionId, sessionIdOf } from '../domain/passthrough/affinity.ts';
import { requestIdTime } from '../shared/ids.ts';
import { formatMicros } from '../shared/money.ts';

/** Probes, scrapes, CORS preflights and the console's files would drown the request log (and are access-logged at debug only). */
const UNLOGGED = new Set(['health_get', 'readiness_get', 'metrics_get', CORS_PREFLIGHT, CONSOLE_ASSET]);

/** Every field of `from` onto `to`, as a spread would copy them (undefined values included). */
function assignFields<T extends LogFields>(to: T, from: LogFields): T {
  for (const name in from) (to as Record<string, unknown>)[name] = from[name as keyof LogFields];
  return to;
}

const NO_FIELDS: LogFields = Object.freeze({});

/** A field as `{ ...fields, ...final }` has it, without making that object for every access line. */
function fieldOf<K extends keyof LogFields>(fields: LogFields, final: LogFields, name: K): LogFields[K] {
  return name in final ? final[name] : fields[name];
}

export interface AccessLog {
  /** Called once the response closed: records the exchange when its handler is done. */
  finish(admin: boolean, req: IncomingMessage, res: ServerResponse, exchange: Exchange): void;
  /** Records an exchange without an HTTP response of its own (a WebSocket turn; `req` is the upgrade's). */
  turn(req: IncomingMessage, exchange: Exchange, status: number, clientGone: boolean): void;
}

const costText = (cost: bigint | null | undefined): string | undefined => (cost === undefined || cost === null ? undefined : formatMicros(cost));

/** An id whose time is further than this from the request's arrival was not minted at arrival. */
const MISDATED_MS = 10 * 60_000;

export function createAccessLog(deps: { logger: Logger; requestLogs: RequestLogs; metrics?: RequestMetrics | undefined }): AccessLog {
  const { logger } = deps;
  let misdated = false;
  // The access line is made here of scalar fields only, so the logger's path redaction (`*.key`
  // and the like: one level down) can never match in it; without the redactor, which parsed its
  // paths again for every field of every line, the gateway allocated 39% fewer bytes per request
  // under load (a sampled allocation profile at c=50). Errors and other lines keep it.
  const lines = logger.child({}, { redact: [] });

  /** Text from the client for a log line: bounded, one line. */
  const clip = (text: string | undefined): string | undefined => (text === undefined ? undefined : text.replace(/[\r\n\u0000]/g, ' ').slice(0, 200));

  function accessLine(
    admin: boolean,
    req: IncomingMessage,
    exchange: Exchange,
    latencyMs: number,
    status: number,
    clientGone: boolean,
    fields: LogFields,
    final: LogFields,
  ): void {
    const operation = exchange.operationId ?? 'unmatched';
    const firstByteMs = exchange.firstByteAt === undefined ? undefined : Number(exchange.firstByteAt - exchange.started) / 1e6;
    const who = exchange.caller ?? exchange.refusedCaller;
    const url = req.url ?? '/';
    lines[UNLOGGED.has(operation) ? 'debug' : 'info'](
      {
        request_id: exchange.requestId,
        client_request_id: exchange.clientRequestId,
        method: req.method,
        path: clip(url.split('?')[0]), // the query may carry what a log should not keep
        operation,
        status,
        duration_ms: Math.round(latencyMs * 100) / 100,
        upstream_ms: fieldOf(fields, final, 'ttfb_ms') ?? undefined,
        first_byte_ms: firstByteMs === undefined ? undefined : Math.round(firstByteMs * 100) / 100,
        bytes: exchange.bytes,
        client_ip: (req as { ip?: string }).ip ?? req.socket.remoteAddress,
        user_agent: clip(typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : undefined),
        customer_id: who?.customerId,
        key_id: who?.keyId,
        model: fieldOf(fields, final, 'model') ?? exchange.model ?? undefined,
        provider: fieldOf(fields, final, 'provider') ?? undefined,
        input_tokens: fieldOf(fields, final, 'input_tokens') ?? undefined,
        output_tokens: fieldOf(fields, final, 'output_tokens') ?? undefined,
        cost: costText(fieldOf(fields, final, 'cost')),
        upstream_error: fieldOf(fields, final, 'upstream_error') ?? undefined,
        client_gone: clientGone || undefined,
        admin: admin || undefined,
      },
      'request',
    );
  }

  function record(admin: boolean, req: IncomingMessage, exchange: Exchange, latencyMs: number, status: number, clientGone: boolean): void {
    // Read, never changed: the handler's fields as they are (the settlement's come apart, as `final`).
    const fields: LogFields = exchange.outcome.log ?? NO_FIELDS;
    const operation = exchange.operationId ?? 'unmatched';
    const model = fields.model ?? exchange.model ?? undefined;
    const firstByteMs = exchange.firstByteAt === undefined ? undefined : Number(exchange.firstByteAt - exchange.started) / 1e6;
    deps.metrics?.observeRequest({ operation, model, status, durationMs: latencyMs, stream: fields.stream === true, firstByteMs });
    const settled = exchange.outcome.settled;
    if (admin || UNLOGGED.has(operation) || !settled) accessLine(admin, req, exchange, latencyMs, status, clientGone, fields, NO_FIELDS);
    if (admin || UNLOGGED.has(operation)) return;
    // Dated when the request arrived, as its id says (the row's partition key: src/shared/ids.ts).
    const arrivedAt = requestIdTime(exchange.requestId);
    if (Math.abs(arrivedAt.getTime() - (Date.now() - latencyMs)) > MISDATED_MS && !misdated) {
      misdated = true; // once: an id minted elsewhere than newRequestId() files its row under a wrong month
      logger.error({ request_id: exchange.requestId }, 'request id does not carry its arrival time (mint ids with newRequestId)');
    }
    // Built by stores into one literal of a fixed shape, not as `{ ...EMPTY_LOG_FIELDS, ...fields,
    // ...final, request_id, ... }`: in this V8 (Node 20) an object literal with a property or a second
    // spread after a spread takes a slow path, about 20 us for this row against 1 us (measured in a
    // loop); same result, key for key.
    const entry = (final: LogFields): RequestLogEntry => {
      const row = newLogEntry();
      row.request_id = exchange.requestId;
      row.client_request_id = exchange.clientRequestId ?? null;
      row.customer_id = exchange.caller?.customerId ?? null;
      row.key_id = exchange.caller?.keyId ?? null;
      row.endpoint = operation;
      row.status = status;
      row.error_type = exchange.errorType;
      row.latency_ms = Math.round(latencyMs);
      row.created_at = arrivedAt;
      row.model = exchange.model;
      // The name as the client sent it (the body's model, or the path's); `model` becomes the id billed.
      row.requested_model = exchange.model;
      row.session_id = loggedSessionId(sessionIdOf(req.headers));
      assignFields(row, fields);
      assignFields(row, final);
      return row;
    };
    if (!settled) return deps.requestLogs.write(entry(NO_FIELDS));
    // A request that holds money is access-logged once its charge is durable, with the cost.
    settled.then(
      (final) => {
        accessLine(admin, req, exchange, latencyMs, status, clientGone, fields, final);
        deps.requestLogs.write(entry(final));
      },
      (error: unknown) => {
        accessLine(admin, req, exchange, latencyMs, status, clientGone, fields, NO_FIELDS);
        logger.error({ request_id: exchange.requestId, err: error }, 'settlement failed; request log not written');
      },
    );
  }

  return {
    finish(admin, req, res, exchange) {
      const latencyMs = Number(process.hrtime.bigint() - exchange.started) / 1e6;
      // A WebSocket's 101 went out through the ws package, not this response (src/http/websocket/upgrade.ts).
      const upgraded = res.statusCode === 101;
      const status = res.writableFinished || res.headersSent || upgraded ? res.statusCode : 499;
      const clientGone = !res.writableFinished && !upgraded;
      void exchange.done.then(() => record(admin, req, exchange, latencyMs, status, clientGone));
    },
    turn(req, exchange, status, clientGone) {
      const latencyMs = Number(process.hrtime.bigint() - exchange.started) / 1e6;
      void exchange.done.then(() => record(false, req, exchange, latencyMs, status, clientGone));
    },
  };
}
