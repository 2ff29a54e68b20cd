import type { ProviderEntry, ProviderProtocol, ProviderTimeouts, RegistryOptions, ResolvedProvider } from '../catalogue/types.ts';
import { attachTaskClient, type TaskCallObserver } from './task-client.ts';

// The catalogue states what an enabled provider is (catalogue/types.ts); this module decides which
// providers are enabled, and gateway.ts hands that decision to the catalogue store.
export type { RegistryOptions, ResolvedProvider } from '../catalogue/types.ts';

// A stream's headers and first event come within seconds; a non-streamed generation sends its
// first byte only when the whole answer is done, hence the separate, longer `response_ms`.
const TEXT = { connect_ms: 10_000, first_byte_ms: 120_000, response_ms: 600_000, idle_ms: 300_000 };
const TASKS = { connect_ms: 10_000, first_byte_ms: 60_000, response_ms: 60_000, idle_ms: 60_000 };
const DEFAULT_TIMEOUTS: Record<ProviderProtocol, Required<ProviderTimeouts>> = {
  anthropic: TEXT,
  'openai-chat': TEXT,
  'openai-videos': TASKS,
  'ark-video': TASKS,
  'minimax-video-v2': TASKS,
};

const TASK_PROTOCOLS: ReadonlySet<ProviderProtocol> = new Set(['openai-videos', 'ark-video', 'minimax-video-v2']);

/**
 * The enabled providers: a real one when its credential variable is set, a sandbox one only in
 * sandbox mode. Everything else is as if it were not in the catalogue. Each task provider gets
 * its got instance (task-client.ts), telling `observer` about its calls.
 */
export function resolveProviders(entries: readonly ProviderEntry[], options: RegistryOptions, observer: TaskCallObserver = {}): Map<string, ResolvedProvider> {
  const enabled = enabledProviders(entries, options);
  for (const provider of enabled.values()) if (TASK_PROTOCOLS.has(provider.protocol)) attachTaskClient(provider, observer);
  return enabled;
}

function enabledProviders(entries: readonly ProviderEntry[], options: RegistryOptions): Map<string, ResolvedProvider> {
  const enabled = new Map<string, ResolvedProvider>();
  for (const entry of entries) {
    const timeouts = { ...DEFAULT_TIMEOUTS[entry.protocol], ...entry.timeouts };
    if (entry.sandbox) {
      if (!options.sandbox) continue;
      const baseUrl = options.sandboxUrls.get(entry.id);
      enabled.set(entry.id, { id: entry.id, protocol: entry.protocol, sandbox: true, baseUrl, timeouts, credential: () => 'sandbox' });
      continue;
    }
    const variable = entry.credential_env ?? '';
    if (!options.env[variable]) continue;
    enabled.set(entry.id, {
      id: entry.id,
      protocol: entry.protocol,
      sandbox: false,
      baseUrl: entry.base_url,
      timeouts,
      credential: () => options.env[variable],
    });
  }
  return enabled;
}
