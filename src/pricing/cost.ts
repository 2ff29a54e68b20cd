// Usage -> cost in micro-units, with integer arithmetic only.
//
// Rounding rule: a cost is the exact sum over its lines of units x price, computed in
// micro-units x 1e-6 (prices are per million units), and rounded UP to the micro-unit once, at the
// end. So 1 token at "0.30" per million tokens costs 1 micro-unit, and 1,000,000 tokens at
// "0.000003" per million cost 3 micro-units.
import { MICROS_PER_UNIT, parseMicros } from '../shared/money.ts';
import type { TokenPrice } from '../catalogue/types.ts';
import { priceFor } from './tiers.ts';
import type { TokenUsage } from './usage.ts';

export type { TokenUsage } from './usage.ts';

/** One kind of usage: how many units, and the price of one million of them in micro-units. */
export interface CostLine {
  units: bigint;
  microsPerMillion: bigint;
  /** A premium (fast mode, priority tier) in millionths: 1_500_000n is x1.5. Default x1. */
  multiplierMicros?: bigint;
  /** Whether free units may pay for this line (tokens yes, server tool requests no). Default yes. */
  freeEligible?: boolean;
}

const MILLION = 1_000_000n;

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

export function costOf(lines: readonly CostLine[]): bigint {
  let numerator = 0n;
  for (const line of lines) {
    const multiplier = line.multiplierMicros ?? MILLION;
    if (line.units < 0n || line.microsPerMillion < 0n || multiplier < 0n) throw new RangeError('negative usage or price');
    numerator += line.units * line.microsPerMillion * multiplier;
  }
  return ceilDiv(numerator, MILLION * MILLION);
}

export interface FreeApplied {
  /** What the customer pays. */
  amount: bigint;
  /** Free units the usage consumed (never more than offered). */
  freeUnitsUsed: bigint;
  /** What the free units were worth: cost of all usage minus `amount`. */
  freeAmount: bigint;
}

/**
 * Free units are consumed line by line in the order given (for tokens: input, cache writes, cache
 * reads, output), each at its own price; what is left is charged.
 */
export function applyFree(lines: readonly CostLine[], freeUnits: bigint): FreeApplied {
  let remaining = freeUnits < 0n ? 0n : freeUnits;
  const chargeable = lines.map((line) => {
    if (line.freeEligible === false) return line;
    const free = line.units < remaining ? line.units : remaining;
    remaining -= free;
    return { ...line, units: line.units - free };
  });
  const full = costOf(lines);
  const amount = costOf(chargeable);
  return { amount, freeUnitsUsed: (freeUnits < 0n ? 0n : freeUnits) - remaining, freeAmount: full - amount };
}

const units = (value: number | bigint | null | undefined): bigint => {
  if (value === null || value === undefined) return 0n;
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new RangeError(`not a whole token count: ${value}`);
  return BigInt(value);
};

/**
 * Token usage as cost lines, in the order free tokens are applied: input, cache writes (5-minute,
 * then 1-hour when priced apart), cache reads, output; server tool requests last, never free.
 * Cache prices default to input's, 1-hour writes to the cache write price. Every token line is
 * priced at the long-context tier the usage reaches (tiers.ts), times the multiplier.
 */
export function tokenLines(tiered: TokenPrice, usage: TokenUsage): CostLine[] {
  const price = priceFor(tiered, usage);
  const input = parseMicros(price.input_per_mtok);
  const cacheWrite = parseMicros(price.cache_write_per_mtok ?? price.input_per_mtok);
  const multiplier = usage.multiplierMicros && usage.multiplierMicros !== MILLION ? { multiplierMicros: usage.multiplierMicros } : {};
  const writes = units(usage.cache_creation_input_tokens);
  const writes1h = price.cache_write_1h_per_mtok ? min(units(usage.cache_creation_1h_input_tokens), writes) : 0n;
  const lines: CostLine[] = [
    { units: units(usage.input_tokens), microsPerMillion: input, ...multiplier },
    { units: writes - writes1h, microsPerMillion: cacheWrite, ...multiplier },
    ...(writes1h > 0n ? [{ units: writes1h, microsPerMillion: parseMicros(price.cache_write_1h_per_mtok!), ...multiplier }] : []),
    { units: units(usage.cache_read_input_tokens), microsPerMillion: parseMicros(price.cache_read_per_mtok ?? price.input_per_mtok), ...multiplier },
    { units: units(usage.output_tokens), microsPerMillion: parseMicros(price.output_per_mtok), ...multiplier },
  ];
  const perRequest = (count: number | bigint | null | undefined, per1k: string | undefined) =>
    per1k && units(count) > 0n ? [{ units: units(count), microsPerMillion: parseMicros(per1k) * 1000n, freeEligible: false }] : [];
  return [
    ...lines,
    ...perRequest(usage.web_search_requests, price.web_search_per_1k_requests),
    ...perRequest(usage.web_fetch_requests, price.web_fetch_per_1k_requests),
  ];
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);

/** Video seconds at a per-second price, as one cost line. */
export function videoLines(perSecond: string, seconds: number | bigint): CostLine[] {
  return [{ units: units(seconds), microsPerMillion: parseMicros(perSecond) * MICROS_PER_UNIT }];
}

/**
 * Whole billed seconds of a delivered duration ("5", 5, "5.04", 4.96): rounded to the nearest
 * whole second, halves up, at least one. Decimal strings are read digit by digit, never as floats.
 * Returns undefined for anything that is not a positive duration (the task then goes to review).
 */
export function billedSeconds(delivered: number | string | null | undefined): number | undefined {
  if (delivered === null || delivered === undefined) return undefined;
  const text = typeof delivered === 'number' ? (Number.isFinite(delivered) ? String(delivered) : '') : delivered.trim();
  const match = /^(\d{1,6})(?:\.(\d+))?$/.exec(text);
  if (!match) return undefined;
  const whole = Number(match[1]);
  const rounded = match[2] && Number(match[2][0]) >= 5 ? whole + 1 : whole;
  if (rounded === 0 && whole === 0 && !/[1-9]/.test(match[2] ?? '')) return undefined;
  return Math.max(1, rounded);
}
