import type { ProviderProtocol } from '../catalogue/types.ts';

/** A simulated upstream listening on loopback, speaking one provider protocol. */
export interface Simulator {
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Simulators by protocol. The messages and video issues register theirs here; until then the
 * sandbox models are listed and priced but have no upstream to call.
 */
export const simulatorFactories: Partial<Record<ProviderProtocol, () => Promise<Simulator>>> = {};

/** Starts one simulator per sandbox provider and returns their base URLs by provider id. */
export async function startSandbox(providers: ReadonlyArray<{ id: string; protocol: ProviderProtocol; sandbox?: boolean }>): Promise<{
  urls: Map<string, string>;
  close(): Promise<void>;
}> {
  const running: Simulator[] = [];
  const urls = new Map<string, string>();
  for (const provider of providers) {
    const factory = provider.sandbox ? simulatorFactories[provider.protocol] : undefined;
    if (!factory) continue;
    const simulator = await factory();
    running.push(simulator);
    urls.set(provider.id, simulator.baseUrl);
  }
  return { urls, close: async () => void (await Promise.all(running.map((s) => s.close()))) };
}
