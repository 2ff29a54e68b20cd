import { expect } from 'chai';
import type { ResolvedRoute } from '../../../src/catalogue/store.ts';
import { loggedSessionId, routesForSession, sessionIdOf } from '../../../src/domain/passthrough/affinity.ts';

const route = (provider: string, priority: number, upstreamModel = 'm'): ResolvedRoute => ({ provider: { id: provider } as never, upstreamModel, priority });
const ids = (routes: ResolvedRoute[]) => routes.map((r) => r.provider.id);

describe('session affinity (rendezvous hashing over equal-priority routes)', () => {
  const routes = [route('a', 1), route('b', 1), route('c', 1), route('backup', 2)];

  it('keeps the catalogue order without a session', () => {
    expect(ids(routesForSession(routes, undefined))).to.deep.equal(['a', 'b', 'c', 'backup']);
  });

  it('orders a session the same way every time (any replica computes it), lower priority first', () => {
    const first = ids(routesForSession(routes, 'session-1'));
    for (let i = 0; i < 5; i++) expect(ids(routesForSession([...routes].reverse(), 'session-1'))).to.deep.equal(first);
    expect(first.at(-1)).to.equal('backup');
    expect(new Set(first.slice(0, 3))).to.deep.equal(new Set(['a', 'b', 'c']));
  });

  it('spreads sessions over the routes, and a route leaving moves only its own sessions', () => {
    const sessions = Array.from({ length: 300 }, (_, i) => `s-${i}`);
    const first = sessions.map((s) => ids(routesForSession(routes, s))[0]!);
    for (const provider of ['a', 'b', 'c']) expect(first.filter((p) => p === provider).length).to.be.within(60, 140);
    const without = routes.filter((r) => r.provider.id !== 'b');
    sessions.forEach((s, i) => {
      const now = ids(routesForSession(without, s))[0];
      if (first[i] !== 'b') expect(now, s).to.equal(first[i]);
      // And the session's failover order is its old order without the route that left.
      expect(ids(routesForSession(without, s))).to.deep.equal(ids(routesForSession(routes, s)).filter((p) => p !== 'b'));
    });
  });

  it('reads the session id from the first header a client uses, and logs it as sent or hashed', () => {
    expect(sessionIdOf({ 'x-claude-code-session-id': ' cc-1 ', session_id: 'codex-1' })).to.equal('cc-1');
    expect(sessionIdOf({ session_id: 'codex-1', 'x-codex-turn-state': 'turn' })).to.equal('codex-1');
    expect(sessionIdOf({ 'x-session-id': ['generic', 'second'] })).to.equal('generic');
    expect(sessionIdOf({ 'x-codex-turn-state': 'turn' })).to.equal('turn');
    expect(sessionIdOf({ 'x-session-id': '  ' })).to.equal(undefined);
    expect(loggedSessionId('103ec714-b73e-4fda-872d-3397fb245118')).to.equal('103ec714-b73e-4fda-872d-3397fb245118');
    expect(loggedSessionId('x'.repeat(129))).to.match(/^sha256:[0-9a-f]{32}$/);
    expect(loggedSessionId('has space')).to.match(/^sha256:[0-9a-f]{32}$/);
    expect(loggedSessionId(undefined)).to.equal(null);
  });
});
