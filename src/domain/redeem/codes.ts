// Redeem codes as customers type them: 24 characters of Crockford's base32 (0-9 and A-Z without
// I, L, O, U), 120 random bits, shown in groups of four (`7KQ2-M9XD-...`). Typing is forgiving:
// case, spaces and hyphens do not matter, and O, I and L read as 0, 1 and 1. Only a code's digest
// is stored. A plain SHA-256 suffices, as for API keys: 120 bits from the CSPRNG cannot be found
// from a leaked digest by trying, so a slow or keyed hash would add nothing but a secret every
// replica must share (and whose loss would void every code outstanding).
import { createHash, randomFillSync } from 'node:crypto';
import { randomBase62 } from '../../shared/ids.ts';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const CODE_LENGTH = 24;

/** A new code, grouped for reading: 24 symbols of 32, each from 5 uniform random bits. */
export function generateRedeemCode(): string {
  const bytes = randomFillSync(Buffer.alloc(CODE_LENGTH));
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[bytes[i]! & 31]; // 256 is a multiple of 32: no symbol favoured
  return code.match(/.{4}/g)!.join('-');
}

/** What a customer typed, as the code it stands for (anything else comes out as it went in, and matches no digest). */
export function normalizeRedeemCode(typed: string): string {
  return typed.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
}

export const hashRedeemCode = (typed: string): string => createHash('sha256').update(normalizeRedeemCode(typed)).digest('hex');

export const newBatchId = (): string => `rb_${randomBase62(20)}`;
export const newCodeId = (): string => `rc_${randomBase62(20)}`;

/** The journal reference of a redeemed code's credit (`top_up:` + this): its id, never the code. */
export const redeemReference = (codeId: string): string => `redeem:${codeId}`;
