// This gateway process as the database knows it: a row with a heartbeat. Reservations name their
// owning process; when a process stops heartbeating (crash, kill -9), any replica's sweeper may
// end its holds. Each tick also runs the hooks that persist what must survive a crash (holds'
// progress checkpoints).
//
// The heartbeat is a lease, and a lease is a promise to stop: once this process has not renewed it
// for half of STALE_RESERVATION_SECONDS, it is fenced (`fenced()`): it opens no hold and draws on
// no grant until a heartbeat lands again, well before any sweeper may take its holds over (at the
// full stale time). The time is measured on this process's monotonic clock from the moment the last
// successful heartbeat was sent, which is never later than the database's `heartbeat_at` for it; the
// other half is the margin for a stalled event loop, a slow commit and clock-rate drift.
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
  /** The lease has not been renewed for the fencing time: open no hold, draw on no grant. */
  fenced(): boolean;
}

/** A process is fenced after this share of the stale time without a renewed heartbeat. */
export const FENCE_SHARE = 0.5;

export function createInstance(deps: { db: Knex; logger: Logger; heartbeatMs: number; staleSeconds: number }): Instance {
  const id = `gw_${randomBase62(20)}`;
  const fenceMs = deps.staleSeconds * 1000 * FENCE_SHARE;
  /** performance.now() when the last heartbeat that landed was sent. */
  let renewedAt = -Infinity;
  let wasFenced = false;
  const fenced = (): boolean => {
    const now = performance.now() - renewedAt > fenceMs;
    if (now !== wasFenced) {
      wasFenced = now;
      if (now) deps.logger.error({ fence_ms: fenceMs }, 'heartbeat not renewed: this process opens no holds until it is');
      else deps.logger.warn('heartbeat renewed: holds open again');
    }
    return now;
  };
  const hooks: Array<() => Promise<void>> = [];
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function tick(): Promise<void> {
    const sent = performance.now();
    try {
      const renewed = await deps.db('gateway_instances').where({ id }).whereNull('stopped_at').update({ heartbeat_at: deps.db.fn.now() });
      if (renewed === 1) renewedAt = sent;
      fenced();
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
    fenced,
    async start() {
      const sent = performance.now();
      await deps.db('gateway_instances').insert({ id, hostname: os.hostname(), pid: process.pid });
      renewedAt = sent;
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
