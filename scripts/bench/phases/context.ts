// What every load phase gets: the plan, the targets of one API, and how to read the CPU time of
// what serves each target and of the gateway's database.
import type { Pool } from 'undici';
import { makePool, type Target } from '../load.ts';
import type { Plan } from '../options.ts';

export interface PhaseContext {
  plan: Plan;
  targets: Target[];
  /** CPU time (ms) so far of the process serving each target (direct: the upstream process). */
  cpu: Record<string, () => number>;
  /** CPU time (ms) so far of the gateway's database (PostgreSQL's processes, or the embedded one's). */
  dbCpu: () => number;
  log: (message: string) => void;
}

export const byName = <T>(targets: Target[], make: (t: Target) => T): Record<string, T> => Object.fromEntries(targets.map((t) => [t.name, make(t)])) as Record<string, T>;

/** One pool per target, closed after `use`. */
export async function withPools<R>(targets: Target[], connections: number, use: (pools: Record<string, Pool>) => Promise<R>): Promise<R> {
  const pools = byName(targets, (t) => makePool(t, connections));
  try {
    return await use(pools);
  } finally {
    await Promise.all(Object.values(pools).map((p) => p.close()));
  }
}
