// Who the load generator drives, per API: the direct upstream, the bare Node proxy in front of it
// (scripts/bench/bare-proxy.mjs: the least a Node process can do per proxied request), the gateway
// and the peer, each with its own credentials and model name. Chat Completions upstreams take the
// key as a bearer token.
import type { Api, Target } from './load.ts';
import { UPSTREAM_KEY, type BareProxy, type Gateway, type Peer, type Upstream } from './processes.ts';

const ANTHROPIC_VERSION = { 'anthropic-version': '2023-06-01' };
export const BARE_PROXY = 'bare proxy';

/** One bare proxy per API (each forwards to one upstream origin). */
export type BareProxies = Partial<Record<Api, BareProxy>>;

/** Without a gateway (the bare proxy alone, as bench:instructions measures it), the gateway's target is left out. */
export function targetsFor(api: Api, upstream: Upstream, gateway: Gateway | undefined, peer: Peer | undefined, bare: BareProxies = {}): Target[] {
  const proxy = bare[api];
  if (api === 'messages') {
    const direct = { ...ANTHROPIC_VERSION, 'x-api-key': UPSTREAM_KEY };
    return [
      { name: 'direct', api, origin: upstream.anthropic, headers: direct, model: 'claude-bench' },
      ...(proxy ? [{ name: BARE_PROXY, api, origin: proxy.origin, headers: direct, model: 'claude-bench' }] : []),
      ...(gateway ? [{ name: 'gateway', api, origin: gateway.origin, headers: { ...ANTHROPIC_VERSION, 'x-api-key': gateway.key }, model: 'bench/claude' }] : []),
      ...(peer
        ? [{ name: 'peer', api, origin: peer.origin, headers: { ...ANTHROPIC_VERSION, 'x-api-key': UPSTREAM_KEY, 'x-portkey-provider': 'anthropic', 'x-portkey-custom-host': `${upstream.anthropic}/v1` }, model: 'claude-bench' }]
        : []),
    ];
  }
  const direct = { authorization: `Bearer ${UPSTREAM_KEY}` };
  return [
    { name: 'direct', api, origin: new URL(upstream.chat).origin, headers: direct, model: 'gpt-bench' },
    ...(proxy ? [{ name: BARE_PROXY, api, origin: proxy.origin, headers: direct, model: 'gpt-bench' }] : []),
    ...(gateway ? [{ name: 'gateway', api, origin: gateway.origin, headers: { authorization: `Bearer ${gateway.key}` }, model: 'bench/chat' }] : []),
    // Portkey's OpenAI provider with the simulator as its custom host (which ends with /v1).
    ...(peer ? [{ name: 'peer', api, origin: peer.origin, headers: { authorization: `Bearer ${UPSTREAM_KEY}`, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstream.chat }, model: 'gpt-bench' }] : []),
  ];
}
