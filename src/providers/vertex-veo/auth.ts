// Vertex AI and Cloud Storage take OAuth 2.0 access tokens of a service account. The provider's
// credential (`credential_env`) holds the account's key as Google issues it: the JSON itself, or
// the path of a file holding it (a value not starting with `{`; read once per process). Google's
// own google-auth-library signs the JWT assertion with the key, exchanges it for a token, caches
// the token and refreshes it before it expires; one client per key, so every call of every
// provider using that key shares one token. Neither the key nor a token is ever logged or put in
// an error: failures become UpstreamErrors without text.
import fs from 'node:fs';
import { JWT } from 'google-auth-library';
import type { ResolvedProvider } from '../../catalogue/types.ts';
import { UpstreamError } from '../types.ts';

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** The longest one token request may take (each of the library's attempts). */
const TOKEN_TIMEOUT_MS = 15_000;
/** Where google-auth-library 10 sends every service-account token request, whatever the key says. */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
}

/** A credential that is not a usable service account key; the message names no part of it. */
export class CredentialError extends Error {}

export function parseServiceAccountKey(credential: string): ServiceAccountKey {
  let text = credential.trim();
  if (!text.startsWith('{')) {
    try {
      text = fs.readFileSync(text, 'utf8');
    } catch {
      throw new CredentialError('the credential is neither a service account key (JSON) nor a readable file holding one');
    }
  }
  let key: Record<string, unknown>;
  try {
    key = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new CredentialError('the service account key is not JSON');
  }
  if (typeof key.client_email !== 'string' || typeof key.private_key !== 'string')
    throw new CredentialError('the service account key has no client_email or private_key');
  if (key.token_uri !== undefined && (typeof key.token_uri !== 'string' || !/^https?:\/\//.test(key.token_uri)))
    throw new CredentialError('the service account key has a token_uri that is not an http(s) URL');
  return {
    client_email: key.client_email,
    private_key: key.private_key,
    ...(typeof key.private_key_id === 'string' ? { private_key_id: key.private_key_id } : {}),
    ...(typeof key.token_uri === 'string' ? { token_uri: key.token_uri } : {}),
  };
}

/**
 * The library's client for a key. google-auth-library 10 posts the assertion to Google's token URL
 * even when the key names another `token_uri` (gtoken/getToken.js); the key's own is honoured by
 * pointing the client's transporter there (the sandbox's key names its simulator). The assertion's
 * `aud` stays Google's token URL, as Google documents it always is.
 */
export function tokenClient(key: ServiceAccountKey): JWT {
  const client = new JWT({
    email: key.client_email,
    key: key.private_key,
    keyId: key.private_key_id,
    scopes: [SCOPE],
    // A token request that hangs must not hold a submission or a download forever (gaxios waits unbounded by default).
    transporterOptions: { timeout: TOKEN_TIMEOUT_MS },
  });
  const tokenUri = key.token_uri;
  if (tokenUri && tokenUri !== GOOGLE_TOKEN_URL) {
    client.transporter.interceptors.request.add({
      resolved: async (config) => {
        if (String(config.url) === GOOGLE_TOKEN_URL) config.url = new URL(tokenUri);
        return config;
      },
    });
  }
  return client;
}

/** One client (and so one cached token) per credential value; a bad credential is remembered as such. */
const clients = new Map<string, JWT | CredentialError>();

function clientOf(credential: string): JWT | CredentialError {
  let client = clients.get(credential);
  if (!client) {
    try {
      client = tokenClient(parseServiceAccountKey(credential));
    } catch (error) {
      client = error instanceof CredentialError ? error : new CredentialError('the service account key cannot be used');
    }
    clients.set(credential, client);
  }
  return client;
}

/**
 * A current access token for the provider's service account: cached by the library until shortly
 * before it expires. A refused exchange (a revoked key, a bad signature) is a 401 without a body,
 * an unreachable token endpoint a retryable connection failure.
 */
export async function accessToken(provider: ResolvedProvider): Promise<string | UpstreamError> {
  const credential = provider.credential();
  if (!credential) return new UpstreamError('status', false, 401);
  const client = clientOf(credential);
  if (client instanceof CredentialError) return new UpstreamError('status', false, 401);
  try {
    const { token } = await client.getAccessToken();
    return token ? token : new UpstreamError('status', false, 401);
  } catch (error) {
    const status = (error as { response?: { status?: unknown } }).response?.status;
    if (typeof status === 'number' && status < 500) return new UpstreamError('status', false, 401);
    return new UpstreamError('connect', true);
  }
}
