// Session affinity: a coding agent's session stays on one upstream account while that account
// stays healthy, so the provider's prompt cache (kept per account) keeps hitting. Among routes of
// equal priority the order is rendezvous (highest-random-weight) hashing of (session id, route):
// no shared state, the same order on every replica, and a route leaving moves only its own
// sessions. Failover is unchanged: on a failure the next route of that order is tried. A request
// without a session id keeps the catalogue's order.
import { createHash } from 'node:crypto';
import type { ResolvedRoute } from '../../catalogue/store.ts';

type Headers = Record<string, string | string[] | undefined>;

/**
 * Where clients put their session id, first found wins: Claude Code, Codex (one per
 * conversation; `session_id` has an underscore, which some proxies drop: see docs/clients.md),
 * any client, then Codex's per-turn routing token.
 */
export const SESSION_HEADERS = ['x-claude-code-session-id', 'session_id', 'x-session-id', 'x-codex-turn-state'] as const;

/** Longer values are hashed as they are but not kept beyond this in memory. */
const MAX_SESSION_CHARS = 1024;
/** Kept as sent in the request log when this short and printable; otherwise as `sha256:<hex>`. */
const LOGGED_AS_SENT = /^[\x21-\x7e]{1,128}$/;

export function sessionIdOf(headers: Headers): string | undefined {
  for (const name of SESSION_HEADERS) {
    const raw = headers[name];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (value) return value.slice(0, MAX_SESSION_CHARS);
  }
  return undefined;
}

/** The session id as the request log keeps it: not a secret, but bounded and printable. */
export const loggedSessionId = (session: string | undefined): string | null =>
  session === undefined ? null : LOGGED_AS_SENT.test(session) ? session : `sha256:${createHash('sha256').update(session).digest('hex').slice(0, 32)}`;

/** The route's weight for a session: 64 bits of SHA-256 over both (any replica computes the same). */
function weight(session: string, route: ResolvedRoute): bigint {
  return createHash('sha256').update(`${session}\u0000${route.provider.id}\u0000${route.upstreamModel}`).digest().readBigUInt64BE(0);
}

/** The routes by priority as before, each group of equal priority ordered by the session's weights. */
export function routesForSession(routes: readonly ResolvedRoute[], session: string | undefined): ResolvedRoute[] {
  if (session === undefined || routes.length < 2) return [...routes];
  const weighed = routes.map((route, index) => ({ route, index, weight: weight(session, route) }));
  weighed.sort((a, b) => a.route.priority - b.route.priority || (a.weight === b.weight ? a.index - b.index : a.weight > b.weight ? -1 : 1));
  return weighed.map((w) => w.route);
}
