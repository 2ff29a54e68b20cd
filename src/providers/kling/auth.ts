// Kling's API token: an HS256 JWT (RFC 7519) signed with the account's secret key, naming the
// access key as its issuer, valid 30 minutes and from 5 s ago (clock skew), as Kling's "API
// authentication" section prescribes. Signed by jose. One token per credential is kept in memory
// and renewed once less than 5 minutes of it remain, so no call leaves with a token about to
// expire; a token Kling calls not yet valid or expired (a clock apart) is dropped at once. The
// keys and tokens never reach a log, an error or an answer.
import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';

export interface KlingKeys {
  accessKey: string;
  secretKey: string;
}

export const TOKEN_LIFETIME_S = 1800;
export const NOT_BEFORE_SKEW_S = 5;
/** A token with less than this left is replaced before the next call. */
export const RENEW_WITHIN_S = 300;

/** The simulated account's keys (src/sandbox/kling/server.ts holds the same pair): a sandbox provider has no credential of its own. */
export const SANDBOX_KEYS: KlingKeys = { accessKey: 'sandbox-kling-access-key', secretKey: 'sandbox-kling-secret-key' };

/**
 * The credential variable's value, `ACCESS_KEY:SECRET_KEY` (split at the first colon), or what
 * is wrong with it, in words that never quote it.
 */
export function parseKlingCredential(value: string | undefined): KlingKeys | string {
  if (!value) return 'is empty';
  const at = value.indexOf(':');
  if (at < 0) return 'must be ACCESS_KEY:SECRET_KEY (the access key, a colon, the secret key); it has no colon';
  const accessKey = value.slice(0, at);
  const secretKey = value.slice(at + 1);
  if (!accessKey || !secretKey) return `must be ACCESS_KEY:SECRET_KEY; its ${accessKey ? 'secret' : 'access'} key is empty`;
  if (/\s/.test(value)) return 'must be ACCESS_KEY:SECRET_KEY without spaces or line breaks';
  return { accessKey, secretKey };
}

export interface KlingTokens {
  /** A token for these keys, valid for at least RENEW_WITHIN_S more seconds. */
  token(keys: KlingKeys): Promise<string>;
  /** Forgets the token of these keys (Kling refused it as not yet valid or expired). */
  forget(keys: KlingKeys): void;
}

const MAX_CREDENTIALS = 64;

/** `now`: the clock, in milliseconds (tests move it). */
export function createKlingTokens(now: () => number = Date.now): KlingTokens {
  // By a digest of the keys, so the map holds no secret as a key.
  const held = new Map<string, { token: Promise<string>; expiresAt: number }>();
  const idOf = (keys: KlingKeys) => createHash('sha256').update(keys.accessKey).update('\0').update(keys.secretKey).digest('hex');
  return {
    token(keys) {
      const id = idOf(keys);
      const at = Math.floor(now() / 1000);
      const kept = held.get(id);
      if (kept && kept.expiresAt - at > RENEW_WITHIN_S) return kept.token;
      const expiresAt = at + TOKEN_LIFETIME_S;
      const token = new SignJWT({})
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(keys.accessKey)
        .setExpirationTime(expiresAt)
        .setNotBefore(at - NOT_BEFORE_SKEW_S)
        .sign(new TextEncoder().encode(keys.secretKey));
      if (held.size >= MAX_CREDENTIALS) held.clear();
      held.set(id, { token, expiresAt });
      void token.catch(() => held.delete(id)); // a failed signing is not kept; the caller sees the rejection
      return token;
    },
    forget(keys) {
      held.delete(idOf(keys));
    },
  };
}
