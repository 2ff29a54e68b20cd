// Amounts and times as the console shows them. Amounts stay the API's decimal strings; sums are
// made in bigint micro-units and written back with six decimals, never through a float.
// Times are shown in the browser's time zone, with the UTC instant for a hover title.

const MICROS = /^(-?)(\d+)(?:\.(\d{1,6}))?$/;

/** A decimal string of the API ("12.500000") in micro-units; throws on anything else. */
export function toMicros(amount: string): bigint {
  const match = MICROS.exec(amount);
  if (!match) throw new Error(`not an amount: ${amount}`);
  const micros = BigInt(match[2]!) * 1_000_000n + BigInt((match[3] ?? '').padEnd(6, '0'));
  return match[1] ? -micros : micros;
}

export function formatMicros(micros: bigint): string {
  const sign = micros < 0n ? '-' : '';
  const abs = micros < 0n ? -micros : micros;
  return `${sign}${abs / 1_000_000n}.${(abs % 1_000_000n).toString().padStart(6, '0')}`;
}

const LOCAL = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
});

/** `2026-11-22 12:00:00 UTC`. */
export const utcText = (date: Date): string => `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
export const localText = (date: Date): string => LOCAL.format(date);

/** Today's UTC date, and the first day of its month (the usage reports' defaults). */
export const todayUtc = (): string => new Date().toISOString().slice(0, 10);
export const monthStartUtc = (): string => `${todayUtc().slice(0, 8)}01`;

/**
 * The end of a period for the API: an instant still to come is left out, and the API then reads up
 * to its watermark (everything final so far); it answers 425 to a `to` past the watermark.
 */
export const endSoFar = (iso: string | undefined): string | undefined => (iso && Date.parse(iso) <= Date.now() ? iso : undefined);

/** A `datetime-local` input's value (the user's zone) as an RFC 3339 instant; '' stays undefined. */
export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** An instant as a `datetime-local` input's value, in the user's zone. */
export function isoToLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Every UTC date from `start` to `end` inclusive (YYYY-MM-DD). */
export function daysBetween(start: string, end: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${start}T00:00:00Z`), last = Date.parse(`${end}T00:00:00Z`); t <= last && days.length < 400; t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}
