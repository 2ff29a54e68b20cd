// The catalogue states what an enabled provider is (catalogue/types.ts); this module decides which
// providers are enabled, and gateway.ts hands that decision to the catalogue store.
import { DEFAULT_MAX_QUEUE_WAIT_SECONDS, type ProviderEntry, type ProviderQueue, type RegistryOptions, type ResolvedProvider } from '../catalogue/types.ts';
import type { Logger } from '../logger.ts';
import type { UpstreamMetrics } from '../metrics/hooks.ts';
import { proxyFor } from '../shared/egress-proxy.ts';
import { combineHooks, meteredCalls, observeCalls } from './call.ts';
import { PROTOCOLS } from './protocols.ts';
import { attachTaskClient } from './task-client.ts';
import type { CallHooks } from './types.ts';

/** Who hears of the providers' calls and problems: all optional (unit tests resolve without them). */
export interface ProviderObservers {
  metrics?: Pick<UpstreamMetrics, 'upstreamAttempt'>;
  /** Told of every attempt after the metrics (a client span per call): see CallHooks in types.ts. */
  calls?: ReadonlyArray<CallHooks<any>>;
  logger?: Logger;
}

/**
 * The enabled providers: a real one when its credential variable is set, a sandbox one only in
 * sandbox mode. Everything else is as if it were not in the catalogue. Every call of each is
 * counted in the upstream metrics (call.ts); each task provider gets its got instance (task-client.ts).
 */
export function resolveProviders(
  entries: readonly ProviderEntry[],
  options: RegistryOptions,
  observers: ProviderObservers = {},
): Map<string, ResolvedProvider> {
  const refusals: Array<{ provider: string; variable: string; problem: string }> = [];
  const enabled = enabledProviders(entries, options, refusals);
  const all = [...(observers.metrics ? [meteredCalls(observers.metrics)] : []), ...(observers.calls ?? [])];
  const hooks = all.length > 0 ? combineHooks(all) : undefined;
  for (const provider of enabled.values()) {
    if (hooks) observeCalls(provider, hooks);
    if (PROTOCOLS[provider.protocol].video) attachTaskClient(provider, observers.logger);
  }
  for (const { provider, variable, problem } of refusals)
    observers.logger?.error({ provider, credential_env: variable }, `provider disabled: ${variable} ${problem}`);
  return enabled;
}

const queueOf = (entry: ProviderEntry): ProviderQueue => ({
  maxConcurrent: entry.max_concurrent_tasks,
  maxWaitMs: (entry.max_queue_wait_seconds ?? DEFAULT_MAX_QUEUE_WAIT_SECONDS) * 1000,
});

function enabledProviders(
  entries: readonly ProviderEntry[],
  options: RegistryOptions,
  refusals: Array<{ provider: string; variable: string; problem: string }>,
): Map<string, ResolvedProvider> {
  const enabled = new Map<string, ResolvedProvider>();
  for (const entry of entries) {
    const timeouts = { ...PROTOCOLS[entry.protocol].timeouts, ...entry.timeouts };
    const storage = entry.storage_uri ? { storage: { uri: entry.storage_uri, apiBaseUrl: entry.storage_base_url } } : {};
    if (entry.sandbox) {
      if (!options.sandbox) continue;
      const baseUrl = options.sandboxUrls.get(entry.id);
      // A simulator may hand out a credential of its own (a simulated service account's key).
      const credential = options.sandboxCredentials?.get(entry.id) ?? 'sandbox';
      enabled.set(entry.id, {
        id: entry.id,
        protocol: entry.protocol,
        sandbox: true,
        baseUrl,
        timeouts,
        queue: queueOf(entry),
        credential: () => credential,
        ...storage,
      });
      continue;
    }
    const variable = entry.credential_env ?? '';
    if (!options.env[variable]) continue;
    // A credential of the wrong shape (Kling's ACCESS_KEY:SECRET_KEY) would fail every call: refused now, said once per load.
    const problem = PROTOCOLS[entry.protocol].credentialProblem?.(options.env[variable]!);
    if (problem) {
      refusals.push({ provider: entry.id, variable, problem });
      continue;
    }
    enabled.set(entry.id, {
      id: entry.id,
      protocol: entry.protocol,
      sandbox: false,
      baseUrl: entry.base_url,
      timeouts,
      queue: queueOf(entry),
      credential: () => options.env[variable],
      proxy: entry.base_url ? proxyFor(options.egressProxy, new URL(entry.base_url)) : undefined,
      egressProxy: options.egressProxy,
      ...storage,
    });
  }
  return enabled;
}
