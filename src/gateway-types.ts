// What startGateway returns and takes (src/gateway.ts wires it).
import type { Knex } from './db/knex.ts';
import type { Logger } from './logger.ts';
import type { Simulator } from './sandbox/index.ts';
import type { Services } from './services.ts';
import type { DemoCredentials } from './startup/demo.ts';

export interface Gateway {
  url: string;
  adminToken: string;
  adminTokenGenerated: boolean;
  demo: DemoCredentials | undefined;
  services: Services;
  db: Knex;
  /** The web console's files (CONSOLE), served at /console/; undefined when off. */
  consoleDir: string | undefined;
  /** GET /metrics without authentication, when METRICS_PORT is set. */
  metricsUrl: string | undefined;
  /** The running simulated upstreams by sandbox provider id (sandbox mode). */
  simulators: ReadonlyMap<string, Simulator>;
  /**
   * Graceful stop: readiness fails at once, open requests and streams run up to the grace period,
   * what is still open then is cut and settled for what was delivered, settlements are flushed,
   * and the database closes last.
   */
  close(options?: { graceMs?: number }): Promise<void>;
  /** Posts queued grant charges and gives back grants no request is drawing from (tests, benchmarks). */
  quiesce(): Promise<void>;
}

export interface GatewayOverrides {
  /** An already migrated database (tests share one per process). */
  db?: Knex;
  logger?: Logger;
  /** Create the demo customer on an empty database (npm start with sandbox providers does; tests do not). */
  seedDemo?: boolean;
  /** The clock keys are judged by (expiry, a rotated-out secret's grace): tests move it instead of waiting. */
  now?: () => Date;
}
