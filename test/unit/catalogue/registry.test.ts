import { expect } from 'chai';
import { resolveProviders } from '../../../src/providers/registry.ts';
import type { ProviderEntry } from '../../../src/catalogue/types.ts';

const entries: ProviderEntry[] = [
  { id: 'anthropic', protocol: 'anthropic', base_url: 'https://api.anthropic.com', credential_env: 'ANTHROPIC_API_KEY' },
  { id: 'ark', protocol: 'ark-video', base_url: 'https://ark.example/api/v3', credential_env: 'ARK_API_KEY', timeouts: { first_byte_ms: 5000 } },
  { id: 'sandbox-anthropic', protocol: 'anthropic', sandbox: true },
  { id: 'sandbox-minimax', protocol: 'minimax-video-v2', sandbox: true },
];

describe('provider registry', () => {
  it('enables a real provider only when its credential variable is non-empty', () => {
    const providers = resolveProviders(entries, { env: { ANTHROPIC_API_KEY: 'sk-ant-secret', ARK_API_KEY: '' }, sandbox: false, sandboxUrls: new Map() });
    expect([...providers.keys()]).to.deep.equal(['anthropic']);
    const anthropic = providers.get('anthropic')!;
    expect(anthropic).to.include({ baseUrl: 'https://api.anthropic.com', sandbox: false });
    expect(anthropic.credential()).to.equal('sk-ant-secret');
  });

  it('never lets the credential out through serialisation', () => {
    const providers = resolveProviders(entries, { env: { ANTHROPIC_API_KEY: 'sk-ant-secret' }, sandbox: false, sandboxUrls: new Map() });
    expect(JSON.stringify([...providers.values()])).to.not.include('sk-ant-secret');
    expect(String(Object.values(providers.get('anthropic')!))).to.not.include('sk-ant-secret');
  });

  it('merges timeouts over the protocol defaults', () => {
    const providers = resolveProviders(entries, { env: { ARK_API_KEY: 'k' }, sandbox: false, sandboxUrls: new Map() });
    expect(providers.get('ark')!.timeouts).to.deep.equal({ connect_ms: 10_000, first_byte_ms: 5000, response_ms: 60_000, idle_ms: 60_000 });
  });

  it('enables sandbox providers only in sandbox mode, listed even before their simulator runs', () => {
    expect(resolveProviders(entries, { env: {}, sandbox: false, sandboxUrls: new Map([['sandbox-anthropic', 'http://127.0.0.1:1']]) }).size).to.equal(0);
    const providers = resolveProviders(entries, { env: {}, sandbox: true, sandboxUrls: new Map([['sandbox-anthropic', 'http://127.0.0.1:4010']]) });
    expect([...providers.keys()]).to.deep.equal(['sandbox-anthropic', 'sandbox-minimax']);
    expect(providers.get('sandbox-anthropic')!.baseUrl).to.equal('http://127.0.0.1:4010');
    expect(providers.get('sandbox-minimax')!.baseUrl).to.equal(undefined);
  });
});
