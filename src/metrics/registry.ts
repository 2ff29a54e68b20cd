// The gateway's Prometheus metrics: one Registry per gateway (never prom-client's global one, so
// several gateways in one test process do not collide). Counters and histograms are fed by three
// hooks (the access-log point, the upstream call, the sweeper); gauges are read at scrape time.
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ROOT_DIR } from '../config.ts';
import type { Logger } from '../logger.ts';
import { createDatabaseGauges, type TaskGaugeReadings } from './database.ts';
import type { ConnectionMetrics, KeyChangeMetrics, RequestMetrics, RequestObservation, SweepMetrics, UpstreamMetrics, VideoQueueMetrics } from './hooks.ts';

export interface Metrics extends RequestMetrics, UpstreamMetrics, SweepMetrics, KeyChangeMetrics, ConnectionMetrics, VideoQueueMetrics {
  readonly contentType: string;
  /** The text exposition, database gauges read now. */
  render(): Promise<string>;
}

export interface MetricsDeps {
  db: Knex;
  logger: Logger;
  /** Whether a model id is in the catalogue: anything else a client sends is labelled `unknown`. */
  knownModel(id: string): boolean;
  currency(): string;
  /** The task engine's readings at scrape time (tasks by status, the poller's lag, the queues). */
  taskGauges?(): Promise<TaskGaugeReadings>;
}

// Requests range from a cached model list (under a millisecond) to streams of several minutes.
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const FIRST_BYTE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createMetrics(deps: MetricsDeps): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  new Gauge({ name: 'gateway_build_info', help: 'Version of the running gateway and of Node.js (always 1).', labelNames: ['version', 'node'], registers }).set(
    { version: packageVersion(), node: process.version },
    1,
  );

  const requests = new Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests answered, by operation (operationId), model and status.',
    labelNames: ['operation', 'model', 'status'],
    registers,
  });
  const durations = new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'From the request to the end of the response (streams included), by operation, model and status.',
    labelNames: ['operation', 'model', 'status'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  const firstByte = new Histogram({
    name: 'gateway_stream_first_byte_seconds',
    help: 'Streamed responses: from the request to the first body byte sent to the client, by operation and model.',
    labelNames: ['operation', 'model'],
    buckets: FIRST_BYTE_BUCKETS,
    registers,
  });
  const upstreamCalls = new Counter({
    name: 'gateway_upstream_requests_total',
    help: 'Calls to providers by provider and outcome (ok, connect, timeout, status, aborted, protocol, egress: refused as internal); status is the HTTP status of a refusal.',
    labelNames: ['provider', 'outcome', 'status'],
    registers,
  });
  const upstreamSeconds = new Histogram({
    name: 'gateway_upstream_response_seconds',
    help: "Time until a provider's answer (its response headers) or the call's failure, by provider.",
    labelNames: ['provider'],
    buckets: FIRST_BYTE_BUCKETS,
    registers,
  });
  const failovers = new Counter({
    name: 'gateway_upstream_failovers_total',
    help: 'Requests moved to the next route after this provider failed before any byte reached the client.',
    labelNames: ['provider'],
    registers,
  });
  const swept = new Counter({ name: 'gateway_reservations_swept_total', help: "Holds of dead processes ended by this process's sweeper.", registers });
  const keyNotifications = new Counter({
    name: 'gateway_key_change_notifications_total',
    help: 'Notifications that a key or customer changed (through any process), received from PostgreSQL.',
    registers,
  });
  const keyListener = new Gauge({
    name: 'gateway_key_change_listener_up',
    help: 'PostgreSQL only: 1 while this process listens for key and customer changes; at 0 a change made elsewhere takes up to KEY_CACHE_MS here.',
    registers,
  });
  const keyListenerStarts = new Counter({
    name: 'gateway_key_change_listener_starts_total',
    help: 'Times this process (re)started listening for key and customer changes (every API key it remembered is read again).',
    registers,
  });
  const database = createDatabaseGauges(registry, deps);
  const connections = createConnectionMetrics(registers);
  const videoQueue = createVideoQueueMetrics(registers);

  const modelLabel = (model: string | null | undefined) => (!model ? '' : deps.knownModel(model) ? model : 'unknown');

  return {
    contentType: registry.contentType,
    observeRequest(o: RequestObservation) {
      const labels = { operation: o.operation, model: modelLabel(o.model), status: String(o.status) };
      requests.inc(labels);
      durations.observe(labels, o.durationMs / 1000);
      if (o.stream && o.firstByteMs !== undefined) firstByte.observe({ operation: o.operation, model: labels.model }, o.firstByteMs / 1000);
    },
    upstreamAttempt(provider, ms, outcome, status) {
      upstreamCalls.inc({ provider, outcome, status: status === undefined ? '' : String(status) });
      upstreamSeconds.observe({ provider }, ms / 1000);
    },
    upstreamFailover(provider) {
      failovers.inc({ provider });
    },
    swept(holds) {
      if (holds > 0) swept.inc(holds);
    },
    keyChangeNotified() {
      keyNotifications.inc();
    },
    keyChangesListening(listening) {
      keyListener.set(listening ? 1 : 0);
      if (listening) keyListenerStarts.inc();
    },
    ...connections,
    ...videoQueue,
    async render() {
      await database.refresh();
      return registry.metrics();
    },
  };
}

function createConnectionMetrics(registers: Registry[]): ConnectionMetrics {
  const open = new Gauge({ name: 'gateway_http_open_connections', help: 'Client connections open on the API port.', registers });
  const refused = new Counter({
    name: 'gateway_http_connections_refused_total',
    help: 'Connections closed as soon as they were accepted because MAX_CONNECTIONS were open.',
    registers,
  });
  const headTimeouts = new Counter({
    name: 'gateway_http_header_timeouts_total',
    help: 'Connections closed because a request head was not complete within HTTP_HEADERS_TIMEOUT_MS (idle or slow-header clients).',
    registers,
  });
  return {
    connectionOpened: () => open.inc(),
    connectionClosed: () => open.dec(),
    connectionRefused: () => refused.inc(),
    headersTimedOut: () => headTimeouts.inc(),
  };
}

// A task waits for a slot at its provider: from none (a free slot) to hours (a long queue).
const QUEUE_WAIT_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600];

function createVideoQueueMetrics(registers: Registry[]): VideoQueueMetrics {
  const waits = new Histogram({
    name: 'gateway_video_queue_wait_seconds',
    help: "Time video tasks waited in the gateway's queue before their provider accepted them, by provider (tasks dispatched by this process).",
    labelNames: ['provider'],
    buckets: QUEUE_WAIT_BUCKETS,
    registers,
  });
  const requeues = new Counter({
    name: 'gateway_video_queue_requeues_total',
    help: "Submissions a provider refused for its account's concurrency (the task went back to the gateway's queue), by provider.",
    labelNames: ['provider'],
    registers,
  });
  return {
    videoDispatched: (provider, waitedSeconds) => waits.observe({ provider }, Math.max(0, waitedSeconds)),
    videoRequeued: (provider) => requeues.inc({ provider }),
  };
}

function packageVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
