// Who the load generator drives, per API: the direct upstream, the gateway and the peer, each with
// its own credentials and model name. Chat Completions upstreams take the key as a bearer token.
import type { Api, Target } from './load.ts';
import { UPSTREAM_KEY, type Gateway, type Peer, type Upstream } from './processes.ts';

const ANTHROPIC_VERSION = { 'anthropic-version': '2023-06-01' };

export function targetsFor(api: Api, upstream: Upstream, gateway: Gateway, peer: Peer | undefined): Target[] {
  if (api === 'messages') {
    return [
      { name: 'direct', api, origin: upstream.anthropic, headers: { ...ANTHROPIC_VERSION, 'x-api-key': UPSTREAM_KEY }, model: 'claude-bench' },
      { name: 'gateway', api, origin: gateway.origin, headers: { ...ANTHROPIC_VERSION, 'x-api-key': gateway.key }, model: 'bench/claude' },
      ...(peer
        ? [{ name: 'peer', api, origin: peer.origin, headers: { ...ANTHROPIC_VERSION, 'x-api-key': UPSTREAM_KEY, 'x-portkey-provider': 'anthropic', 'x-portkey-custom-host': `${upstream.anthropic}/v1` }, model: 'claude-bench' }]
        : []),
    ];
  }
  return [
    { name: 'direct', api, origin: new URL(upstream.chat).origin, headers: { authorization: `Bearer ${UPSTREAM_KEY}` }, model: 'gpt-bench' },
    { name: 'gateway', api, origin: gateway.origin, headers: { authorization: `Bearer ${gateway.key}` }, model: 'bench/chat' },
    // Portkey's OpenAI provider with the simulator as its custom host (which ends with /v1).
    ...(peer ? [{ name: 'peer', api, origin: peer.origin, headers: { authorization: `Bearer ${UPSTREAM_KEY}`, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstream.chat }, model: 'gpt-bench' }] : []),
  ];
}
