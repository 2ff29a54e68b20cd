// Streaming: 64 content deltas paced at 20 ms; time to first body byte and the gap between deltas,
// one stream at a time, then 100 streams opened 12.8 ms apart (a stream's length / 100) so that
// 100 are open together. A stream counts only with all 64 deltas and its end event.
import { concurrentStreams, requestBody, streamOnce, type StreamSample } from '../load.ts';
import type { StreamRow } from '../results.ts';
import { streamRows } from '../summarise.ts';
import { byName, withPools, type PhaseContext } from './context.ts';

export const STREAM_DELTAS = 64;

export async function streamPhase(ctx: PhaseContext): Promise<{ stream1: Record<string, StreamRow>; stream100: Record<string, StreamRow> }> {
  const { plan, targets } = ctx;
  if (!plan.streamRounds && !plan.stream100Rounds) return { stream1: {}, stream100: {} };
  ctx.log('streaming at 1 and 100 concurrent streams');
  const paced = byName(targets, (t) => requestBody(t, `Tell a story. [[sim deltas=${STREAM_DELTAS} gap_ms=20]]`, true));
  const s1 = byName<StreamSample[]>(targets, () => []);
  await withPools(targets, 1, async (pools) => {
    for (const t of targets) for (let i = 0; i < 5; i++) await streamOnce(pools[t.name]!, t, requestBody(t, 'Warm up. [[sim deltas=2]]', true));
    for (let round = 0; round < plan.streamRounds; round++) {
      for (const t of targets) for (let i = 0; i < plan.streamsPerRound; i++) s1[t.name]!.push(await streamOnce(pools[t.name]!, t, paced[t.name]!));
    }
  });
  const s100 = byName<StreamSample[]>(targets, () => []);
  await withPools(targets, 100, async (pools) => {
    for (let round = 0; round < plan.stream100Rounds; round++) {
      // A stream lasts 64 x 20 ms; opened 12.8 ms apart, 100 are open together from the last start on.
      for (const t of targets) s100[t.name]!.push(...(await concurrentStreams(pools[t.name]!, t, paced[t.name]!, 100, (STREAM_DELTAS * 20) / 100)));
    }
  });
  return { stream1: streamRows(s1, STREAM_DELTAS), stream100: streamRows(s100, STREAM_DELTAS) };
}
