// Usage -> cost in micro-units, with integer arithmetic only.
//
// Rounding rule: a cost is the exact sum over its lines of units x price, computed in
// micro-units x 1e-6 (prices are per million units), and rounded UP to the micro-unit once, at the
// end. So 1 token at "0.30" per million tokens costs 1 micro-unit, and 1,000,000 tokens at
// "0.000003" per million cost 3 micro-units.
import { MICROS_PER_UNIT, parseMicros } from '../catalogue/decimal.ts';
import type { TokenPrice } from '../catalogue/types.ts';

/** One kind of usage: how many units, and the price of one million of them in micro-units. */
export interface CostLine {
  units: bigint;
  microsPerMillion: bigint;
}

const MILLION = 1_000_000n;

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

export function costOf(lines: readonly CostLine[]): bigint {
  let numerator = 0n;
  for (const line of lines) {
    if (line.units < 0n || line.microsPerMillion < 0n) throw new RangeError('negative usage or price');
    numerator += line.units * line.microsPerMillion;
  }
  return ceilDiv(numerator, MILLION);
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
    const free = line.units < remaining ? line.units : remaining;
    remaining -= free;
    return { units: line.units - free, microsPerMillion: line.microsPerMillion };
  });
  const full = costOf(lines);
  const amount = costOf(chargeable);
  return { amount, freeUnitsUsed: (freeUnits < 0n ? 0n : freeUnits) - remaining, freeAmount: full - amount };
}

export interface TokenUsage {
  input_tokens: number | bigint;
  output_tokens: number | bigint;
  cache_creation_input_tokens?: number | bigint | null;
  cache_read_input_tokens?: number | bigint | null;
}

const units = (value: number | bigint | null | undefined): bigint => {
  if (value === null || value === undefined) return 0n;
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new RangeError(`not a whole token count: ${value}`);
  return BigInt(value);
};

/** Token usage as cost lines, in the order free tokens are applied. Cache prices default to input's. */
export function tokenLines(price: TokenPrice, usage: TokenUsage): CostLine[] {
  const input = parseMicros(price.input_per_mtok);
  return [
    { units: units(usage.input_tokens), microsPerMillion: input },
    { units: units(usage.cache_creation_input_tokens), microsPerMillion: parseMicros(price.cache_write_per_mtok ?? price.input_per_mtok) },
    { units: units(usage.cache_read_input_tokens), microsPerMillion: parseMicros(price.cache_read_per_mtok ?? price.input_per_mtok) },
    { units: units(usage.output_tokens), microsPerMillion: parseMicros(price.output_per_mtok) },
  ];
}

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
