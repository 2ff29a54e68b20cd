// Conditional GET for discovery: the ETag is a digest of the answer itself, so it differs between
// callers who see different models and changes whenever the catalogue changes what they see, and
// any replica computes the same one. A matching If-None-Match gets 304 with no body.
import { createHash } from 'node:crypto';
import type { JsonReply, RequestContext } from './handler.ts';

/** How long a client may reuse the answer before revalidating (the catalogue hot-reloads). */
const MAX_AGE_SECONDS = 60;

function matches(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  const value = Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch;
  if (!value) return false;
  // Weak comparison (RFC 9110 13.1.2): W/"x" matches "x".
  return value.split(',').some((tag) => tag.trim() === '*' || tag.trim().replace(/^W\//, '') === etag);
}

export function cacheable(ctx: RequestContext, body: unknown): JsonReply {
  const etag = `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 22)}"`;
  const headers = {
    etag,
    // Keyed answers depend on the key: no shared cache may hand them to anyone else.
    'cache-control': `${ctx.caller ? 'private' : 'public'}, max-age=${MAX_AGE_SECONDS}`,
    vary: 'Authorization, x-api-key, anthropic-version, Origin',
  };
  if (matches(ctx.headers['if-none-match'], etag)) return { status: 304, body: undefined, headers };
  return { status: 200, body, headers };
}
