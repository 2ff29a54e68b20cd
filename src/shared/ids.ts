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
