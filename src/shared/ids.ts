import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn 4 KiB at a time: one call into the CSPRNG per ~80 ids instead of one per
// id (each request mints a few: its id, its hold, its log row).
const pool = Buffer.alloc(4096);
let offset = pool.length;

function nextByte(): number {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  return pool[offset++]!;
}

/** Uniform random base62 string (rejection sampling, so no character is favoured). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextByte();
    if (byte < 248) out += BASE62[byte % 62]; // 248 = 62 * 4: keeps the distribution flat
  }
  return out;
}

export const newCustomerId = (): string => `cus_${randomBase62(20)}`;
export const newApiKeyId = (): string => `key_${randomBase62(20)}`;

/** Digits of the arrival time (Unix milliseconds, base62) that open a request id: enough until the year 8900. */
const TIME_DIGITS = 8;
const REQUEST_ID = /^req_[0-9A-Za-z]{24}$/;

/**
 * A request id: `req_` + the arrival time in 8 base62 digits + 16 random ones (95 bits). The id
 * carries its request log row's partition key (created_at, docs/operations.md "Request-log
 * retention"), so a receipt finds its row in one partition; ids also sort by arrival, which keeps
 * the request_id index's inserts at its right edge.
 */
export function newRequestId(now: number = Date.now()): string {
  let time = '';
  for (let rest = Math.floor(now), i = 0; i < TIME_DIGITS; i++, rest = Math.floor(rest / 62)) time = BASE62[rest % 62]! + time;
  return `req_${time}${randomBase62(24 - TIME_DIGITS)}`;
}

/**
 * When the request named by `id` arrived, as its id says (the created_at of its log row); the
 * epoch for a string that is not a request id. The database's `request_log_created_at(text)`
 * computes the same (src/db/migrations/20261128180000_request_log_partitions.ts).
 */
export function requestIdTime(id: string): Date {
  if (!REQUEST_ID.test(id)) return new Date(0);
  let ms = 0;
  for (let i = 0; i < TIME_DIGITS; i++) ms = ms * 62 + BASE62.indexOf(id[4 + i]!);
  return new Date(ms);
}
