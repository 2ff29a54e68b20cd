// Added latency at concurrency 1 against a zero-delay upstream, in interleaved rounds.
import { requestBody, sequential, type RequestSample } from '../load.ts';
import type { LatencyRow } from '../results.ts';
import { latencyRows } from '../summarise.ts';
import { byName, withPools, type PhaseContext } from './context.ts';

export async function latencyPhase(ctx: PhaseContext): Promise<Record<string, LatencyRow>> {
  const { plan, targets } = ctx;
  if (!plan.latencyRounds) return {};
  ctx.log('non-streaming latency at concurrency 1');
  return withPools(targets, 1, async (pools) => {
    const body = byName(targets, (t) => requestBody(t, 'Say hello.'));
    for (const t of targets) await sequential(pools[t.name]!, t, body[t.name]!, plan.warmup);
    const samples = byName<RequestSample[]>(targets, () => []);
    for (let round = 0; round < plan.latencyRounds; round++) {
      for (const t of targets) samples[t.name]!.push(...(await sequential(pools[t.name]!, t, body[t.name]!, plan.latencyPerRound)));
    }
    return latencyRows(samples);
  });
}
