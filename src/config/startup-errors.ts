// What an operator reads when the gateway cannot start: one line per problem, naming the variable
// to change, and no stack trace (those are for bugs, shown only at LOG_LEVEL debug or trace).
import { CatalogueLoadError } from '../catalogue/store.ts';
import { ConfigError, type Config } from '../config.ts';
import { oneLine, StartupError } from './preflight.ts';

export function describeStartupError(error: unknown, config: Config | undefined): string[] {
  if (error instanceof ConfigError) return error.problems;
  if (error instanceof StartupError) return [oneLine(error.message)];
  const e = error as NodeJS.ErrnoException & { port?: number; address?: string };
  if (e?.syscall === 'listen' && config) {
    const metrics = config.metricsPort !== undefined && e.port === config.metricsPort && e.port !== config.port;
    const [portVar, hostVar] = metrics ? ['METRICS_PORT', 'METRICS_HOST'] : ['PORT', 'HOST'];
    const where = `${e.address ?? (metrics ? config.metricsHost : config.host)}:${e.port}`;
    if (e.code === 'EADDRINUSE') return [`${portVar}: ${where} is already in use (EADDRINUSE); stop what holds it or set ${portVar} to a free port`];
    if (e.code === 'EACCES') return [`${portVar}: not allowed to listen on ${where} (EACCES; ports below 1024 need privileges)`];
    if (e.code === 'EADDRNOTAVAIL') return [`${hostVar}: ${e.address ?? where} is not an address of this machine (EADDRNOTAVAIL)`];
  }
  if (error instanceof CatalogueLoadError) return [`CATALOGUE_PATH: ${oneLine(error.message)}`];
  return [oneLine(error instanceof Error ? error.message || error.name : String(error))];
}

/** Prints the lines to stderr; the stack too when the operator asked for debug output. */
export function reportStartupFailure(error: unknown, config: Config | undefined, out: NodeJS.WritableStream = process.stderr): void {
  for (const line of describeStartupError(error, config)) out.write(`gateway: cannot start: ${line}\n`);
  const classified = error instanceof ConfigError || error instanceof StartupError || (error as NodeJS.ErrnoException)?.syscall === 'listen';
  if (!classified && error instanceof Error && config && ['debug', 'trace'].includes(config.logLevel)) out.write(`${error.stack}\n`);
}
