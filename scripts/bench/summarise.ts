// Raw samples into the rows of the report: percentiles, added latency over the direct upstream,
// throughput and CPU time per request, stream completeness.
import { percentile, type RequestSample, type StreamSample } from './load.ts';
import type { LatencyRow, StreamRow, ThroughputRow } from './results.ts';

export const round2 = (n: number) => Math.round(n * 100) / 100;
const latencies = (samples: RequestSample[]) => samples.filter((s) => s.ok).map((s) => s.ms);

export function latencyRows(byTarget: Record<string, RequestSample[]>): Record<string, LatencyRow> {
  const direct = latencies(byTarget.direct ?? []);
  return Object.fromEntries(
    Object.entries(byTarget).map(([name, samples]) => {
      const own = latencies(samples);
      const [p50, p99] = [percentile(own, 50), percentile(own, 99)];
      return [name, { samples: samples.length, errors: samples.length - own.length, p50: round2(p50), p99: round2(p99), addedP50: round2(p50 - percentile(direct, 50)), addedP99: round2(p99 - percentile(direct, 99)) }];
    }),
  );
}

export interface ThroughputRaw {
  samples: RequestSample[];
  elapsedMs: number;
  cpuMs: number;
  dbCpuMs: number;
}

export function throughputRow({ samples, elapsedMs, cpuMs, dbCpuMs }: ThroughputRaw): ThroughputRow {
  const ok = latencies(samples);
  // Microsecond precision: the bare proxy's CPU per request is well under 0.1 ms.
  const per = (ms: number) => Math.round((ms / Math.max(1, samples.length)) * 1000) / 1000;
  const firstError = samples.find((s) => !s.ok);
  return {
    requests: samples.length,
    cpuMsPerRequest: per(cpuMs),
    dbCpuMsPerRequest: per(dbCpuMs),
    rps: round2((ok.length / Math.max(1, elapsedMs)) * 1000),
    p50: round2(percentile(ok, 50)),
    p99: round2(percentile(ok, 99)),
    errorRate: samples.length ? round2(((samples.length - ok.length) / samples.length) * 100) / 100 : 0,
    ...(firstError ? { firstFailure: `HTTP ${firstError.status || 'connection error'}` } : {}),
  };
}

/** `deltas`: the content deltas a complete stream carries. */
export function streamRows(byTarget: Record<string, StreamSample[]>, deltas: number): Record<string, StreamRow> {
  const complete = (samples: StreamSample[]) => samples.filter((s) => s.ok && s.deltas === deltas);
  const directOk = complete(byTarget.direct ?? []);
  const directTtfb = directOk.map((s) => s.ttfbMs);
  const directGaps = directOk.flatMap((s) => s.gapsMs);
  return Object.fromEntries(
    Object.entries(byTarget).map(([name, samples]) => {
      const ok = complete(samples);
      const ttfb = ok.map((s) => s.ttfbMs);
      const gaps = ok.flatMap((s) => s.gapsMs);
      const firstError = samples.find((s) => !(s.ok && s.deltas === deltas));
      return [
        name,
        {
          streams: samples.length,
          complete: ok.length,
          ttfbP50: round2(percentile(ttfb, 50)),
          ttfbP99: round2(percentile(ttfb, 99)),
          addedTtfbP50: round2(percentile(ttfb, 50) - percentile(directTtfb, 50)),
          addedTtfbP99: round2(percentile(ttfb, 99) - percentile(directTtfb, 99)),
          gapP99: round2(percentile(gaps, 99)),
          addedGapP99: round2(percentile(gaps, 99) - percentile(directGaps, 99)),
          ...(firstError ? { firstFailure: describeStreamFailure(firstError, deltas) } : {}),
        },
      ];
    }),
  );
}

export function describeStreamFailure(sample: StreamSample, deltas: number): string {
  const what = sample.status === 200 ? `HTTP 200, ${sample.deltas}/${deltas} deltas${sample.sawStop ? '' : ', no end event'}` : `HTTP ${sample.status || 'connection error'}`;
  return `${what} ${sample.error ?? ''}`.trim().slice(0, 200);
}
