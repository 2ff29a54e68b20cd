// Closed-loop throughput against a 20 ms upstream (c=50, and c=200 for the direct-vs-gateway
// line), with the CPU time per request of each target's process and of the gateway's database
// read from /proc over the same rounds.
import { closedLoop, requestBody } from '../load.ts';
import type { ThroughputRow } from '../results.ts';
import { throughputRow, type ThroughputRaw } from '../summarise.ts';
import { byName, withPools, type PhaseContext } from './context.ts';

export async function throughputPhase(ctx: PhaseContext, concurrency: number, rounds: number, durationMs: number): Promise<Record<string, ThroughputRow>> {
  const { targets } = ctx;
  if (!rounds) return {};
  ctx.log(`throughput at concurrency ${concurrency}, upstream 20 ms`);
  return withPools(targets, concurrency, async (pools) => {
    const body = byName(targets, (t) => requestBody(t, 'Say hello. [[sim first_byte_ms=20]]'));
    for (const t of targets) await closedLoop(pools[t.name]!, t, body[t.name]!, concurrency, 1000);
    const raw = byName<ThroughputRaw>(targets, () => ({ samples: [], elapsedMs: 0, cpuMs: 0, dbCpuMs: 0 }));
    for (let round = 0; round < rounds; round++) {
      for (const t of targets) {
        const [cpuBefore, dbBefore] = [ctx.cpu[t.name]!(), ctx.dbCpu()];
        const run = await closedLoop(pools[t.name]!, t, body[t.name]!, concurrency, durationMs);
        const into = raw[t.name]!;
        into.cpuMs += ctx.cpu[t.name]!() - cpuBefore;
        into.dbCpuMs += ctx.dbCpu() - dbBefore;
        into.samples.push(...run.samples);
        into.elapsedMs += run.elapsedMs;
      }
    }
    return Object.fromEntries(Object.entries(raw).map(([name, r]) => [name, throughputRow(r)]));
  });
}
