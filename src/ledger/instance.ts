// This gateway process as the database knows it: a row with a heartbeat. Reservations name their
// owning process; when a process stops heartbeating (crash, kill -9), any replica's sweeper may
// end its holds. Each tick also runs the hooks that persist what must survive a crash (holds'
// progress checkpoints).
import os from 'node:os';
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import { randomBase62 } from '../shared/ids.ts';

export interface Instance {
  readonly id: string;
  /** Registers the process and starts heartbeating every `heartbeatMs`. */
  start(): Promise<void>;
  /** Work to run on every heartbeat tick, after the heartbeat itself. */
  onTick(hook: () => Promise<void>): void;
  /** Runs one tick now (tests, shutdown). */
  tick(): Promise<void>;
  /** Stops heartbeating and marks the process stopped (its holds are ended by then). */
  stop(): Promise<void>;
}

export function createInstance(deps: { db: Knex; logger: Logger; heartbeatMs: number }): Instance {
  const id = `gw_${randomBase62(20)}`;
  const hooks: Array<() => Promise<void>> = [];
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function tick(): Promise<void> {
    try {
      await deps.db('gateway_instances').where({ id }).update({ heartbeat_at: deps.db.fn.now() });
    } catch (error) {
      deps.logger.warn({ err: error }, 'heartbeat failed; retrying on the next tick');
    }
    for (const hook of hooks) {
      try {
        await hook();
      } catch (error) {
        deps.logger.warn({ err: error }, 'heartbeat hook failed; retrying on the next tick');
      }
    }
  }

  const schedule = () => {
    timer = setTimeout(() => {
      running = tick().finally(() => {
        running = undefined;
        if (timer) schedule();
      });
    }, deps.heartbeatMs);
    timer.unref();
  };

  return {
    id,
    async start() {
      await deps.db('gateway_instances').insert({ id, hostname: os.hostname(), pid: process.pid });
      schedule();
    },
    onTick: (hook) => void hooks.push(hook),
    tick: () => running ?? tick(),
    async stop() {
      clearTimeout(timer);
      timer = undefined;
      await running;
      await tick();
      await deps.db('gateway_instances').where({ id }).update({ stopped_at: deps.db.fn.now() });
    },
  };
}
