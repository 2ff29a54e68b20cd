import { timingSafeEqual, createHash } from 'node:crypto';
import { CustomerError } from '../customers/errors.ts';
import { isRefused, type Refused } from '../customers/authenticate.ts';
import type { Caller, CustomerService } from '../customers/service.ts';
import { Failure } from '../domain/failure.ts';
import { HttpError } from './errors.ts';

type Headers = Record<string, string | string[] | undefined>;

/** How an operation wants to be authenticated, read from its `security` in the spec. */
export interface AuthPolicy {
  /** `{}` among the requirements: callers without credentials are let through as anonymous. */
  anonymousAllowed: boolean;
  schemes: ReadonlySet<string>;
}

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function bearerToken(headers: Headers): string | undefined {
  const value = header(headers, 'authorization');
  const match = value?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/** `who`: a key that exists but is refused (suspended, expired) names its owner for the access log. */
export type CustomerAuth =
  { kind: 'anonymous' } | { kind: 'caller'; caller: Caller } | { kind: 'rejected'; failure: Failure; who?: { customerId: string; keyId: string } };

const rejected = (): CustomerAuth => ({ kind: 'rejected', failure: new Failure(HttpError.InvalidApiKey, '') });

/**
 * Finds the customer key among the credentials the operation accepts. The Anthropic SDK sends
 * both `x-api-key` and `Authorization` when both are configured, so every presented credential
 * is tried; presenting credentials that are all invalid is a 401 even where anonymous is allowed.
 * A real key that may not be used says why: expired (401) or its customer suspended (403).
 */
export async function authenticateCustomer(headers: Headers, policy: AuthPolicy, customers: CustomerService, url = ''): Promise<CustomerAuth> {
  const presented: string[] = [];
  if (policy.schemes.has('ApiKeyBearer')) {
    const token = bearerToken(headers);
    if (token) presented.push(token);
    else if (header(headers, 'authorization')) presented.push('');
  }
  if (policy.schemes.has('ApiKeyHeader')) {
    const key = header(headers, 'x-api-key');
    if (key !== undefined) presented.push(key.trim());
  }
  // Google's ways (/v1beta/*): the `x-goog-api-key` header and the `key` query parameter.
  if (policy.schemes.has('GoogleApiKey')) {
    const key = header(headers, 'x-goog-api-key');
    if (key !== undefined) presented.push(key.trim());
  }
  if (policy.schemes.has('GoogleApiKeyQuery')) {
    const key = queryKey(url);
    if (key !== undefined) presented.push(key.trim());
  }
  if (presented.length === 0) return policy.anonymousAllowed ? { kind: 'anonymous' } : rejected();
  let refusal: Refused | undefined;
  for (const candidate of new Set(presented)) {
    const result = candidate ? await customers.authenticate(candidate) : null;
    if (isRefused(result)) refusal ??= result;
    else if (result) return { kind: 'caller', caller: result };
  }
  if (!refusal) return rejected();
  const who = { customerId: refusal.customerId, keyId: refusal.keyId };
  if (refusal.refused === CustomerError.CustomerSuspended)
    return { kind: 'rejected', who, failure: new Failure(refusal.refused, 'This account is suspended; contact the operator of this gateway.') };
  return { kind: 'rejected', who, failure: new Failure(refusal.refused, 'This API key has expired; ask the operator for a new one.') };
}

/** The `key` query parameter of a request URL (first value), if any. */
function queryKey(url: string): string | undefined {
  const mark = url.indexOf('?');
  if (mark === -1 || !url.includes('key=', mark)) return undefined;
  return new URLSearchParams(url.slice(mark + 1)).get('key') ?? undefined;
}

/** Constant-time comparison of the operator token (digests make the lengths equal). */
export function adminTokenMatches(headers: Headers, adminToken: string): boolean {
  const presented = bearerToken(headers);
  if (!presented) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(adminToken));
}
