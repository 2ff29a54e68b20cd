import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random base62 string (rejection sampling, so no character is favoured). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62]; // 248 = 62 * 4: keeps the distribution flat
      if (out.length === length) break;
    }
  }
  return out;
}

export const newCustomerId = (): string => `cus_${randomBase62(20)}`;
export const newApiKeyId = (): string => `key_${randomBase62(20)}`;
