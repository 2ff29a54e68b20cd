// What the engine's functions work with, built once in src/gateway.ts and given to the worker and
// to each product that accepts or cancels tasks.
import type { Knex } from 'knex';
import type { CatalogueStore } from '../catalogue/store.ts';
import type { Ledger } from '../ledger/service.ts';
import type { Logger } from '../logger.ts';
import type { VideoQueueMetrics } from '../metrics/hooks.ts';
import type { TaskKinds } from './kind.ts';

export interface TaskContext {
  db: Knex;
  ledger: Ledger;
  logger: Logger;
  /** Providers by id, for tasks whose model may since have left the catalogue. */
  catalogue: CatalogueStore;
  kinds: TaskKinds;
  /** How soon a live task is polled again, and the first step of every backoff (the poller's interval). */
  pollMs: number;
  /** How long a task may take upstream before it goes to review (default 48 h, the providers' own expiry). */
  deadlineMs?: number;
  metrics?: VideoQueueMetrics;
}

export const DEFAULT_DEADLINE_MS = 48 * 3_600_000;

/** A submission unconfirmed after this long is treated as orphaned by its process (worker.ts). */
export const SUBMIT_LEASE_MS = 60_000;
