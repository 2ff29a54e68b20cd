import path from 'node:path';
import type { ProviderProtocol } from '../catalogue/types.ts';
import { startAnthropicSimulator } from './anthropic/server.ts';
import { startArkSimulator } from './ark/server.ts';
import { startDashScopeSimulator } from './dashscope/server.ts';
import { startGeminiSimulator } from './gemini/server.ts';
import { startKlingSimulator } from './kling/server.ts';
import { startMiniMaxSimulator } from './minimax/server.ts';
import { startOpenAIChatSimulator } from './openai-chat/server.ts';
import { startOpenAIResponsesSimulator } from './openai-responses/server.ts';
import { startOpenAIVideosSimulator } from './openai-videos/server.ts';
import { startVertexVeoSimulator } from './vertex-veo/server.ts';

import type { Simulator, SimulatorOptions } from './simulator.ts';

export type { Simulator } from './simulator.ts';

/** Simulators by protocol. A sandbox provider whose protocol has none is listed and priced but has no upstream to call. */
export const simulatorFactories: Partial<Record<ProviderProtocol, (options: SimulatorOptions) => Promise<Simulator>>> = {
  anthropic: () => startAnthropicSimulator(),
  'openai-chat': () => startOpenAIChatSimulator(),
  'openai-responses': () => startOpenAIResponsesSimulator(),
  gemini: () => startGeminiSimulator(),
  'vertex-gemini': () => startGeminiSimulator({ vertex: true }),
  'ark-video': (options) => startArkSimulator(options),
  'openai-videos': (options) => startOpenAIVideosSimulator(options),
  'minimax-video-v2': (options) => startMiniMaxSimulator(options),
  'dashscope-video': (options) => startDashScopeSimulator(options),
  'kling-video': (options) => startKlingSimulator(options),
  'vertex-veo': (options) => startVertexVeoSimulator(options),
};

/**
 * Starts one simulator per sandbox provider and returns their base URLs (and the credentials some
 * hand out) by provider id. Task simulators keep their tasks in `DATA_DIR/sandbox/<provider id>.jsonl`,
 * so a restarted gateway's simulators still serve the tasks and files of the last run.
 */
export async function startSandbox(
  providers: ReadonlyArray<{ id: string; protocol: ProviderProtocol; sandbox?: boolean }>,
  options: { dataDir?: string } = {},
): Promise<{
  urls: Map<string, string>;
  credentials: Map<string, string>;
  simulators: Map<string, Simulator>;
  close(): Promise<void>;
}> {
  const running: Simulator[] = [];
  const simulators = new Map<string, Simulator>();
  const urls = new Map<string, string>();
  const credentials = new Map<string, string>();
  for (const provider of providers) {
    const factory = provider.sandbox ? simulatorFactories[provider.protocol] : undefined;
    if (!factory) continue;
    const simulator = await factory(options.dataDir ? { stateFile: path.join(options.dataDir, 'sandbox', `${provider.id}.jsonl`) } : {});
    running.push(simulator);
    urls.set(provider.id, simulator.baseUrl);
    if (simulator.credential) credentials.set(provider.id, simulator.credential);
    simulators.set(provider.id, simulator);
  }
  return { urls, credentials, simulators, close: async () => void (await Promise.all(running.map((s) => s.close()))) };
}
