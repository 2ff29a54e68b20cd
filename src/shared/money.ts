// Decimal strings <-> bigint micro-units (1 unit = 1,000,000 micro). No floating point anywhere.

export const MICROS_PER_UNIT = 1_000_000n;

/** Upper bound on any single amount: 10^15 micro-units (a billion currency units). */
export const MAX_AMOUNT = 1_000_000_000_000_000n;
const DECIMAL = /^(\d+)(?:\.(\d{1,6}))?$/;

export class DecimalError extends Error {}

/**
 * Decimals parsed before: prices are a catalogue's few strings, each read several times per
 * request (the hold, the bill, the operator's cost). Bounded: past the limit it starts again.
 */
const parsed = new Map<string, bigint>();
const PARSED_MAX = 4096;

/** "3.00" -> 3000000n. Rejects signs, exponents, whitespace and more than 6 decimals. */
export function parseMicros(decimal: string): bigint {
  const known = parsed.get(decimal);
  if (known !== undefined) return known;
  const match = DECIMAL.exec(decimal);
  if (!match) throw new DecimalError(`not a non-negative decimal with at most 6 decimals: "${decimal}"`);
  const [, whole = '0', fraction = ''] = match;
  const micros = BigInt(whole) * MICROS_PER_UNIT + BigInt(fraction.padEnd(6, '0'));
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(decimal, micros);
  return micros;
}

/** 3000000n -> "3.000000"; negative amounts keep their sign. */
export function formatMicros(micros: bigint): string {
  const sign = micros < 0n ? '-' : '';
  const abs = micros < 0n ? -micros : micros;
  return `${sign}${abs / MICROS_PER_UNIT}.${(abs % MICROS_PER_UNIT).toString().padStart(6, '0')}`;
}
