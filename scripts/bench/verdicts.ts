// Each target of issue 15 against one database's figures from this run. `ok` is undefined when
// the figure was not measured (a phase not run, the peer unavailable or failing).
import type { Api } from './load.ts';
import type { DatabaseResults, StreamRow, ThroughputRow } from './results.ts';
import { BARE_PROXY } from './targets.ts';

export interface Verdict {
  target: string;
  ok: boolean | undefined;
  detail: string;
}

const API_LABEL: Record<Api, string> = { messages: 'messages', chat: 'chat' };
const plus = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? 'n/a' : `${n >= 0 ? '+' : ''}${n.toFixed(2)}`);
const both = (...oks: Array<boolean | undefined>) => (oks.includes(false) ? false : oks.includes(undefined) ? undefined : true);
/** A peer figure is usable only if the peer answered (NaN percentiles mean it failed every request). */
const usable = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? undefined : n);

/** Issue 38: the gateway's CPU time per proxied request at c=50, at most this many times the bare proxy's. */
export const CPU_RATIO_LIMIT = 3;

/** A target's CPU time per request over the bare proxy's, measured in the same rounds ("2.41x"). */
export const cpuRatio = (row: ThroughputRow, bare: ThroughputRow): string => (bare.cpuMsPerRequest > 0 ? `${(row.cpuMsPerRequest / bare.cpuMsPerRequest).toFixed(2)}x` : 'n/a');

/** Throughput ratio the gateway must reach over the peer at c=50, per database. */
export const C50_RATIO: Record<DatabaseResults['database'], number> = { postgres: 1.5, embedded: 1.0 };

export function verdicts(db: DatabaseResults): Verdict[] {
  const out: Verdict[] = [];
  for (const api of Object.keys(db.apis) as Api[]) {
    const r = db.apis[api]!;
    const label = API_LABEL[api];
    const gw = r.latency.gateway;
    if (gw) {
      const peer = usable(r.latency.peer?.addedP50);
      const peer99 = usable(r.latency.peer?.addedP99);
      out.push({ target: `${label}: c=1 added p50 <= 1 ms and <= the peer's`, ok: both(gw.addedP50 <= 1, peer === undefined ? undefined : gw.addedP50 <= peer), detail: `${plus(gw.addedP50)} ms vs peer ${plus(peer)} ms` });
      out.push({ target: `${label}: c=1 added p99 <= the peer's`, ok: peer99 === undefined ? undefined : gw.addedP99 <= peer99, detail: `${plus(gw.addedP99)} ms vs peer ${plus(peer99)} ms` });
    }
    const tg = r.throughput.gateway;
    if (tg) {
      const tp = r.throughput.peer && r.throughput.peer.rps > 0 ? r.throughput.peer : undefined;
      const ratio = C50_RATIO[db.database];
      // One name on both databases (so the summary lines up); the ratio this database needs is in the detail.
      out.push({ target: `${label}: c=50 req/s >= 1.5x the peer's (PostgreSQL), >= 1.0x (embedded)`, ok: tp ? tg.rps >= ratio * tp.rps : undefined, detail: tp ? `${tg.rps.toFixed(0)} vs ${tp.rps.toFixed(0)} (${(tg.rps / tp.rps).toFixed(2)}x; needs ${ratio.toFixed(1)}x)` : `${tg.rps.toFixed(0)} vs n/a` });
      out.push({ target: `${label}: c=50 p99 <= the peer's`, ok: tp ? tg.p99 <= tp.p99 : undefined, detail: `${tg.p99.toFixed(1)} vs ${tp ? tp.p99.toFixed(1) : 'n/a'} ms` });
      out.push({ target: `${label}: c=50 no errors`, ok: tg.errorRate === 0, detail: `${(tg.errorRate * 100).toFixed(2)} %` });
      const bare = r.throughput[BARE_PROXY];
      if (bare) {
        const peerPart = r.throughput.peer ? `; peer ${r.throughput.peer.cpuMsPerRequest.toFixed(3)} ms (${cpuRatio(r.throughput.peer, bare)})` : '';
        out.push({
          target: `${label}: c=50 CPU per request <= ${CPU_RATIO_LIMIT}x the bare proxy's`,
          ok: bare.cpuMsPerRequest > 0 ? tg.cpuMsPerRequest <= CPU_RATIO_LIMIT * bare.cpuMsPerRequest : undefined,
          detail: `${tg.cpuMsPerRequest.toFixed(3)} vs ${bare.cpuMsPerRequest.toFixed(3)} ms (${cpuRatio(tg, bare)})${peerPart}`,
        });
      }
    }
    const s1 = r.stream1.gateway;
    const s100 = r.stream100.gateway;
    if (s1 && s100) {
      const ttfbOk = (s: StreamRow) => s.complete > 0 && s.addedTtfbP99 < 5;
      out.push({ target: `${label}: streams, added TTFB p99 < 5 ms (1 and 100 streams)`, ok: ttfbOk(s1) && ttfbOk(s100), detail: `${plus(s1.addedTtfbP99)} / ${plus(s100.addedTtfbP99)} ms` });
      out.push({ target: `${label}: no lost event (1 and 100 streams)`, ok: s1.complete === s1.streams && s100.complete === s100.streams, detail: `${s1.complete}/${s1.streams}, ${s100.complete}/${s100.streams} complete` });
    }
    const wg = r.wide.gateway;
    const wd = r.wide.direct;
    if (wg && wd) {
      out.push({ target: `${label}: c=200, 20 ms upstream: req/s within 10% of direct`, ok: wg.rps >= 0.9 * wd.rps && wg.errorRate === 0, detail: `${wg.rps.toFixed(0)} vs ${wd.rps.toFixed(0)} (${(wg.rps / wd.rps).toFixed(2)}x), errors ${(wg.errorRate * 100).toFixed(2)} %` });
    }
    const m = r.memory;
    if (m) {
      const dbPart = m.dbRssPeakMb !== undefined ? `; database process ${m.dbRssPeakMb.toFixed(0)} MB besides` : '';
      out.push({ target: `${label}: 1,000 open streams under 200 MB RSS`, ok: m.rssPeakMb < 200 && m.complete === m.openStreams, detail: `${m.rssPeakMb.toFixed(0)} MB, ${m.complete}/${m.openStreams} complete${dbPart}` });
    }
  }
  const v = db.video;
  if (v && db.database === 'postgres') {
    out.push({ target: `video: ${v.tasks} due tasks settled at >= 1,000/s`, ok: v.settledPerSecond >= 1000 && v.remaining === 0 && v.review === 0 && v.createFailures === 0, detail: `${v.settledPerSecond.toFixed(0)} tasks/s (${v.settled} settled, ${v.review} review, ${v.remaining} left)` });
    if (v.idleTick) {
      out.push({ target: 'video: idle poller tick = one indexed query', ok: v.idleTick.queriesPerTick === 1 && v.idleTick.usesIndex, detail: `${v.idleTick.queriesPerTick} query, ${v.idleTick.plan.find((n) => n.includes('video_tasks_due')) ?? v.idleTick.plan.join(' > ')}` });
    }
  }
  const l = db.ledger;
  out.push({ target: 'money: reconciliation ok, reserved 0 once grants are given back', ok: l.reconciliationOk === true && l.reserved !== null && Number(l.reserved) === 0, detail: `reconciliation ${l.reconciliationOk === null ? 'n/a' : l.reconciliationOk ? 'ok' : 'NOT ok'}, reserved ${l.reserved ?? 'n/a'}` });
  return out;
}
