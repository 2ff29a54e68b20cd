// The sandbox's Google service account and its token endpoint. A throwaway RSA key is made at
// start; its key file (the JSON Google issues, with `token_uri` naming this simulator) is the
// credential the sandbox provider calls with. The token endpoint checks an assertion as Google
// documents it: an RS256 JWT signed with that key, `iss` the account, `aud` Google's token URL,
// the cloud-platform scope, at most an hour long; it answers an access token the simulated Vertex
// and Cloud Storage then require. Errors as Google's: `{"error": "invalid_grant", ...}`.
import { generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import type { JsonAnswer } from '../json-server.ts';

export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_LIFETIME_S = 3599;

export interface ServiceAccountKeyFile {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  universe_domain: string;
}

let processKeyPair: { privateKey: KeyObject; publicKey: KeyObject } | undefined;

/**
 * A key file for an account named `name` in `project`. Its RSA key pair is made once per process
 * and shared by the simulators' accounts (a 2048-bit key costs a few hundred milliseconds of CPU,
 * and a process running the sandbox starts two simulators that need one; the test suite starts
 * hundreds); each account's tokens are its own issuer's. `fresh` makes a key pair of its own: a
 * key the simulator has never seen.
 */
export function makeServiceAccountKey(
  project: string,
  name: string,
  tokenUri: string,
  { fresh = false } = {},
): { file: ServiceAccountKeyFile; publicKey: KeyObject } {
  const { privateKey, publicKey } = fresh
    ? generateKeyPairSync('rsa', { modulusLength: 2048 })
    : (processKeyPair ??= generateKeyPairSync('rsa', { modulusLength: 2048 }));
  const file: ServiceAccountKeyFile = {
    type: 'service_account',
    project_id: project,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: `${name}@${project}.iam.gserviceaccount.com`,
    client_id: String(100_000_000_000_000_000_000n + BigInt(`0x${randomBytes(8).toString('hex')}`)),
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: tokenUri,
    universe_domain: 'googleapis.com',
  };
  return { file, publicKey };
}

const oauthError = (status: number, error: string, description: string): JsonAnswer => ({ status, body: { error, error_description: description } });

function decodeSegment(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function createTokenIssuer(account: { file: ServiceAccountKeyFile; publicKey: KeyObject }) {
  const tokens = new Map<string, number>(); // access token -> expiry (ms)
  let issued = 0;

  /** POST /token: `grant_type` and `assertion` as form fields. */
  function exchange(form: Record<string, unknown>): JsonAnswer {
    if (form.grant_type !== JWT_BEARER) return oauthError(400, 'unsupported_grant_type', `Invalid grant_type: ${String(form.grant_type ?? '')}`);
    const parts = typeof form.assertion === 'string' ? form.assertion.split('.') : [];
    const [header, claims] = [decodeSegment(parts[0] ?? ''), decodeSegment(parts[1] ?? '')];
    if (parts.length !== 3 || !header || !claims) return oauthError(400, 'invalid_request', 'Invalid JWT.');
    if (header.alg !== 'RS256') return oauthError(400, 'invalid_grant', 'Invalid JWT: the signing algorithm must be RS256.');
    if (header.kid !== undefined && header.kid !== account.file.private_key_id) return oauthError(400, 'invalid_grant', 'Invalid JWT Signature.');
    const signed = verify('RSA-SHA256', Buffer.from(`${parts[0]}.${parts[1]}`), account.publicKey, Buffer.from(parts[2]!, 'base64url'));
    if (!signed) return oauthError(400, 'invalid_grant', 'Invalid JWT Signature.');
    if (claims.iss !== account.file.client_email) return oauthError(400, 'invalid_grant', 'Invalid email or User ID');
    if (claims.aud !== GOOGLE_TOKEN_URL) return oauthError(400, 'invalid_grant', 'Invalid JWT: the audience must be the token endpoint.');
    const now = Math.floor(Date.now() / 1000);
    const [iat, exp] = [claims.iat, claims.exp];
    if (typeof iat !== 'number' || typeof exp !== 'number' || exp <= now || exp - iat > 3600 || iat > now + 300)
      return oauthError(400, 'invalid_grant', 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.');
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
    if (!scopes.includes(SCOPE)) return oauthError(400, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    const token = `ya29.sandbox.${randomBytes(32).toString('base64url')}`;
    if (tokens.size > 10_000) tokens.clear();
    tokens.set(token, Date.now() + TOKEN_LIFETIME_S * 1000);
    issued++;
    return { status: 200, body: { access_token: token, expires_in: TOKEN_LIFETIME_S, token_type: 'Bearer' } };
  }

  /** Whether an `Authorization` header carries a token this endpoint issued and that has not expired. */
  function authorized(header: string | string[] | undefined): boolean {
    const match = typeof header === 'string' ? /^Bearer (\S+)$/.exec(header) : null;
    const expiry = match ? tokens.get(match[1]!) : undefined;
    return expiry !== undefined && expiry > Date.now();
  }

  return { exchange, authorized, issued: () => issued, revokeAll: () => tokens.clear() };
}
