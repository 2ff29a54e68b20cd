import { expect } from 'chai';
import { stringify } from 'yaml';
import { parseCatalogue } from '../../../src/catalogue/load.ts';
import { DEFAULT_MAX_QUEUE_WAIT_SECONDS, type Catalogue } from '../../../src/catalogue/types.ts';
import { resolveProviders } from '../../../src/providers/registry.ts';

const catalogue = (providers: Array<Record<string, unknown>>): Catalogue =>
  ({ service_name: 'gateway', currency: 'USD', providers, models: [] }) as unknown as Catalogue;
const parsed = (providers: Array<Record<string, unknown>>) => parseCatalogue(stringify(catalogue(providers)), 'c.yaml');
const errors = (providers: Array<Record<string, unknown>>) => {
  const result = parsed(providers);
  return result.ok ? '' : result.errors.join('\n');
};
const ark = { id: 'ark', protocol: 'ark-video', base_url: 'https://ark.example/api/v3', credential_env: 'ARK_KEY' };

describe("catalogue: a video provider's queue settings", () => {
  it('takes max_concurrent_tasks and max_queue_wait_seconds on video providers, sandbox ones too', () => {
    expect(parsed([{ ...ark, max_concurrent_tasks: 5, max_queue_wait_seconds: 3600 }]).ok).to.equal(true);
    expect(parsed([{ id: 's', protocol: 'minimax-video-v2', sandbox: true, max_concurrent_tasks: 1 }]).ok).to.equal(true);
  });

  it('refuses a limit that is not a positive integer, a wait past 48 h, and either on a provider that is not a video one', () => {
    expect(errors([{ ...ark, max_concurrent_tasks: 0 }])).to.include('providers.0.max_concurrent_tasks must be >= 1');
    expect(errors([{ ...ark, max_concurrent_tasks: 2.5 }])).to.include('providers.0.max_concurrent_tasks must be integer');
    expect(errors([{ ...ark, max_queue_wait_seconds: 172801 }])).to.include('providers.0.max_queue_wait_seconds must be <= 172800');
    const chat = { id: 'c', protocol: 'openai-chat', base_url: 'https://c.example/v1', credential_env: 'C_KEY', max_concurrent_tasks: 3 };
    expect(errors([chat])).to.include('providers.0 (c).max_concurrent_tasks: only video providers queue tasks, openai-chat does not');
  });

  it('resolves into the enabled provider: the limit, and the wait bound (6 h unless set)', () => {
    const env = { ARK_KEY: 'k' };
    const limited = resolveProviders([{ ...ark, max_concurrent_tasks: 4 } as never], { env, sandbox: false, sandboxUrls: new Map() });
    expect(limited.get('ark')!.queue).to.deep.equal({ maxConcurrent: 4, maxWaitMs: DEFAULT_MAX_QUEUE_WAIT_SECONDS * 1000 });
    expect(DEFAULT_MAX_QUEUE_WAIT_SECONDS).to.equal(21600);
    const open = resolveProviders([{ ...ark, max_queue_wait_seconds: 60 } as never], { env, sandbox: false, sandboxUrls: new Map() });
    expect(open.get('ark')!.queue).to.deep.equal({ maxConcurrent: undefined, maxWaitMs: 60_000 });
  });
});
