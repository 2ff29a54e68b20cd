// What DashScope metered for a finished Wan task (`usage` of GET /api/v1/tasks/{task_id}):
//   output_video_duration  seconds generated (Wan 2.5 and later; with `duration: -1`, automatic
//                          length on Wan 3.0, only this says how long the video is)
//   video_duration         the same on older models (Wan 2.1/2.2), read when the first is absent
//   input_video_duration   seconds of input video billed (reference-to-video, video edit)
//   duration               the billed total, input + output
//   SR                     the resolution tier billed (720 or 1080; 480 on Wan 3.0)
//   video_ratio            the pixel size ("1280*720") on older models, which report no SR
//   video_count            videos made (always one for Wan)
// The billed seconds are output + input: DashScope bills input video seconds at the output's
// per-second price, so the gateway charges both at the task's tier. Sums are exact to the
// millisecond (reference clips are billed in fractions such as 1.65 s).

export interface WanUsage {
  /** Billed seconds as a decimal string, or undefined when usage does not say. */
  seconds: string | undefined;
  /** The metered tier ("720p"), or undefined. */
  tier: string | undefined;
  /** Why the usage contradicts itself, when it does. */
  contradiction: string | undefined;
}

/** A non-negative number of seconds in thousandths, or undefined. */
function millis(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 1000) : undefined;
}

const decimal = (ms: number): string => `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`;

/** "1280*720" or "1280x720" -> "720p" (a tier is named by the shorter side). */
function tierOfPixels(value: unknown): string | undefined {
  const match = typeof value === 'string' ? /^(\d+)[*x](\d+)$/.exec(value) : null;
  return match ? `${Math.min(Number(match[1]), Number(match[2]))}p` : undefined;
}

function tierOfSR(value: unknown): string | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) && n > 0 ? `${n}p` : undefined;
}

export function readUsage(usage: Record<string, unknown>): WanUsage {
  const output = millis(usage.output_video_duration) ?? millis(usage.video_duration);
  const input = millis(usage.input_video_duration) ?? 0;
  const total = millis(usage.duration);
  const sr = tierOfSR(usage.SR);
  const pixels = tierOfPixels(usage.video_ratio);
  const problems: string[] = [];
  if (output !== undefined && total !== undefined && total !== output + input)
    problems.push(`usage.duration ${decimal(total)} s is not input ${decimal(input)} s + output ${decimal(output)} s`);
  if (sr && pixels && sr !== pixels) problems.push(`usage.SR says ${sr} but usage.video_ratio ${String(usage.video_ratio)} is ${pixels}`);
  if (usage.video_count !== undefined && usage.video_count !== 1) problems.push(`usage.video_count is ${String(usage.video_count)}, not 1`);
  return {
    seconds: output === undefined || output === 0 ? undefined : decimal(output + input),
    tier: sr ?? pixels,
    contradiction: problems.length ? `The provider's usage contradicts itself: ${problems.join('; ')}.` : undefined,
  };
}
