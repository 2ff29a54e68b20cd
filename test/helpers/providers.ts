// Two sandbox providers served by one test server: `text` (a text protocol, called with undici)
// and `tasks` (a video protocol, called with got), resolved as the gateway resolves them, with
// the given observers of their calls (the metrics, client spans).
import type { ResolvedProvider } from '../../src/catalogue/types.ts';
import { resolveProviders, type ProviderObservers } from '../../src/providers/registry.ts';

export function textAndTaskProviders(base: string, observers: ProviderObservers): Map<string, ResolvedProvider> {
  return resolveProviders(
    [
      { id: 'text', protocol: 'openai-chat', sandbox: true },
      { id: 'tasks', protocol: 'ark-video', sandbox: true },
    ],
    {
      env: {},
      sandbox: true,
      sandboxUrls: new Map([
        ['text', base],
        ['tasks', base],
      ]),
    },
    observers,
  );
}
