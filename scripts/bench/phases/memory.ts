// Memory: the gateway's resident set (and the embedded database process's, apart) sampled every
// 50 ms while 1,000 streams are open at once. run.ts gives it a gateway started afresh, so the
// figure does not depend on which load phases ran before; a short warm-up compiles the paths.
import { concurrentStreams, makePool, requestBody, sequential, streamOnce, type Target } from '../load.ts';
import type { Gateway } from '../processes.ts';
import { rssMb } from '../procfs.ts';
import type { MemoryRow } from '../results.ts';
import { describeStreamFailure } from '../summarise.ts';
import { STREAM_DELTAS } from './streams.ts';

export async function memoryPhase(gateway: Gateway, target: Target, openStreams: number, log: (m: string) => void): Promise<MemoryRow | undefined> {
  if (!openStreams) return undefined;
  log(`memory with ${openStreams} open streams`);
  const pool = makePool(target, openStreams);
  await sequential(pool, target, requestBody(target, 'Warm up.'), 200);
  await Promise.all(Array.from({ length: 20 }, () => streamOnce(pool, target, requestBody(target, 'Warm up. [[sim deltas=4]]', true))));
  const rssBeforeMb = rssMb(gateway.pid);
  const dbRssBeforeMb = gateway.dbPid ? rssMb(gateway.dbPid) : undefined;
  let [rssPeakMb, dbRssPeakMb] = [rssBeforeMb, dbRssBeforeMb];
  const sampler = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, rssMb(gateway.pid));
    if (gateway.dbPid) dbRssPeakMb = Math.max(dbRssPeakMb ?? 0, rssMb(gateway.dbPid));
  }, 50);
  try {
    const streams = await concurrentStreams(pool, target, requestBody(target, `Tell a long story. [[sim deltas=${STREAM_DELTAS} gap_ms=100]]`, true), openStreams);
    const complete = streams.filter((s) => s.ok && s.deltas === STREAM_DELTAS);
    const failed = streams.find((s) => !(s.ok && s.deltas === STREAM_DELTAS));
    return {
      openStreams,
      complete: complete.length,
      rssBeforeMb: round(rssBeforeMb),
      rssPeakMb: round(rssPeakMb),
      ...(dbRssBeforeMb !== undefined ? { dbRssBeforeMb: round(dbRssBeforeMb), dbRssPeakMb: round(dbRssPeakMb!) } : {}),
      ...(failed ? { firstFailure: describeStreamFailure(failed, STREAM_DELTAS) } : {}),
    };
  } finally {
    clearInterval(sampler);
    await pool.close();
  }
}

const round = (n: number) => Math.round(n * 100) / 100;
