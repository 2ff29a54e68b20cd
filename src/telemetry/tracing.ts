// Starts OpenTelemetry tracing when the environment asks for it (an OTLP endpoint or a traces
// exporter named: config.tracing.enabled). The SDK and everything that touches spans are loaded
// here by a dynamic import, so a gateway with tracing off never loads them (src/telemetry/hooks.ts).
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { taskSpans } from '../providers/index.ts';
import { traceHooks, type TraceHooks } from './hooks.ts';

export interface Tracing {
  hooks: TraceHooks;
  /** Exports the spans still buffered and stops (after the gateway closed). */
  shutdown(): Promise<void>;
}

export async function startTracing(options: Config['tracing'], logger: Logger): Promise<Tracing | undefined> {
  if (!options.enabled) return undefined;
  const { startSdk } = await import('./sdk.ts');
  const tracing = startSdk(options, logger);
  traceHooks.current = tracing.hooks;
  taskSpans.current = tracing.hooks;
  logger.info({ gen_ai_attributes: options.genAi, trace_context_to_providers: options.contextToProviders }, 'OpenTelemetry tracing on');
  return {
    hooks: tracing.hooks,
    async shutdown() {
      traceHooks.current = undefined;
      taskSpans.current = undefined;
      await tracing.shutdown();
    },
  };
}
