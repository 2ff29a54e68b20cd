// What one benchmark run measured, per database and API: the shapes the phases fill, the verdicts
// read and the report renders.
import type { Api } from './load.ts';
import type { DatabaseKind } from './options.ts';
import type { IdleTick } from './video-tick.ts';

export interface LatencyRow { samples: number; errors: number; p50: number; p99: number; addedP50: number; addedP99: number }
export interface ThroughputRow { requests: number; cpuMsPerRequest: number; dbCpuMsPerRequest: number; rps: number; p50: number; p99: number; errorRate: number; firstFailure?: string }
export interface StreamRow { streams: number; complete: number; ttfbP50: number; ttfbP99: number; addedTtfbP50: number; addedTtfbP99: number; gapP99: number; addedGapP99: number; firstFailure?: string }
export interface MemoryRow { openStreams: number; complete: number; rssBeforeMb: number; rssPeakMb: number; dbRssBeforeMb?: number; dbRssPeakMb?: number; firstFailure?: string }

/** Rows by target name (direct, gateway, peer); empty when the phase did not run. */
export interface ApiResults {
  latency: Record<string, LatencyRow>;
  throughput: Record<string, ThroughputRow>;
  /** c=200 against a 20 ms upstream. */
  wide: Record<string, ThroughputRow>;
  stream1: Record<string, StreamRow>;
  stream100: Record<string, StreamRow>;
  memory?: MemoryRow;
}

export interface VideoResults {
  /** How the tasks were made due. */
  method: string;
  tasks: number;
  createFailures: number;
  createdPerSecond: number;
  liveBeforeDue: number;
  settled: number;
  review: number;
  remaining: number;
  settleSeconds: number;
  settledPerSecond: number;
  idleTick?: IdleTick;
}

export interface LedgerResults {
  reserved: string | null;
  reconciliationOk: boolean | null;
  /** How long after the last request the wallet's reserved amount reached 0 (grants given back). */
  waitedSeconds: number;
  detail?: string;
}

export interface DatabaseResults {
  database: DatabaseKind;
  label: string;
  apis: Partial<Record<Api, ApiResults>>;
  /** Resident sets once the load phases are over (before the memory phases' fresh gateways). */
  rssAfterLoad: { gatewayMb: number; databaseMb?: number };
  video?: VideoResults;
  ledger: LedgerResults;
  /** Warning and error lines in the gateway's JSON log over the run, and warnings on its stderr. */
  gatewayLog: { warnings: number; errors: number; first?: string; stderrWarnings?: number; stderrByPhase?: Record<string, number>; firstStderr?: string; unexpectedExits?: string[] };
}

export interface BenchResults {
  generatedAt: string;
  mode: 'quick' | 'full';
  machine: { cpu: string; memoryGiB: number; os: string; node: string; postgres: string; commit: string };
  peer: string;
  plan: Record<string, number>;
  databases: DatabaseResults[];
  /** `--scale`: an empty and a seeded PostgreSQL side by side (scripts/bench/phases/scale.ts). */
  scale?: ScaleResults;
}

/** One read's timing on one side; the export's also its rows and rows per second. */
export interface ScaleTiming { p50Ms: number; maxMs: number; rows?: number; rowsPerSecond?: number }

export interface ScaleResults {
  /** Request-log rows seeded (journal entries: journalEntries), across `customers`. */
  requests: number;
  journalEntries: number;
  customers: number;
  seedSeconds: number;
  tables: Array<{ name: string; rows: number; tableMb: number; indexesMb: number }>;
  reads: Array<{ what: string; empty: ScaleTiming; seeded: ScaleTiming }>;
  /** c=50 on the gateway of each database; ratio: seeded over empty requests/s (issue 38: >= 0.95). */
  hotPath: {
    empty: ThroughputRow;
    seeded: ThroughputRow;
    ratio: number;
    /** The database's transactions ended and rows written (inserted, updated, deleted) per request. */
    perRequest: Record<'empty' | 'seeded', { transactions: number; rowsWritten: number }>;
  };
  /** The request log's retention job (REQUEST_LOG_RETENTION_DAYS=days) once on each side (scripts/bench/scale-retention.ts). */
  retention: {
    days: number;
    /** Rows per batched delete (src/logs/retention.ts). */
    batchSize: number;
    /** failed: the job's error (the gateway's next tick would retry). */
    empty: RetentionRun | { failed: string };
    seeded: RetentionRun | { failed: string };
    /** The seeded side's gateway at c=50 while its job ran. */
    hotPathDuring?: { requests: number; rps: number; p50: number; p99: number; errorRate: number };
  };
}

/** One run of the job: what it removed, how (whole partitions, batches) and in how long; the journal before and after. */
export interface RetentionRun {
  seconds: number;
  partitionsDropped: number;
  rowsInDroppedPartitions: number;
  /** Time in the DROP TABLE statements. */
  dropSeconds: number;
  rowsDeletedInBatches: number;
  batches: number;
  /** Time in the batched DELETE statements (each its own transaction). */
  batchSeconds: number;
  batchRowsPerSecond: number;
  /** Request-log rows and journal entries written before the job (the hot path adds its own meanwhile). */
  logRows: { before: number; after: number };
  journalEntries: { before: number; after: number };
}
