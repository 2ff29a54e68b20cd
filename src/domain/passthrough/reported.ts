// The provider's usage object as it reported it, kept for the request's receipt: counts, tiers and
// flags only (never content), bounded in size. Stream usage is cumulative: a later report
// overwrites a field, and a field it leaves out or sends as null keeps its earlier value.

const MAX_KEYS = 40;
const MAX_TEXT = 64;

type Reported = Record<string, unknown>;

const isRecord = (value: unknown): value is Reported => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

function keep(value: unknown, depth: number): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.length <= MAX_TEXT ? value : undefined;
  if (depth < 2 && isRecord(value)) return mergeReported(undefined, value, depth + 1);
  return undefined;
}

/** `previous` with `next`'s fields laid over it (one level of nested objects merged). */
export function mergeReported(previous: Reported | undefined, next: unknown, depth = 0): Reported | undefined {
  if (!isRecord(next)) return previous;
  const merged: Reported = { ...previous };
  for (const [key, value] of Object.entries(next).slice(0, MAX_KEYS)) {
    if (value === null || value === undefined || key === '__proto__') continue;
    const kept = isRecord(value) && isRecord(merged[key]) && depth < 2 ? mergeReported(merged[key] as Reported, value, depth + 1) : keep(value, depth);
    if (kept !== undefined) merged[key] = kept;
  }
  return merged;
}

/** Which counts were estimated, as codes joined by commas (null: none). */
export function estimateReason(missing: Array<string | false>): string | null {
  const codes = missing.filter((code): code is string => Boolean(code));
  return codes.length > 0 ? codes.join(',') : null;
}

/** A token count as a provider reports it: a non-negative safe integer, else unknown. */
export const reportedCount = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
