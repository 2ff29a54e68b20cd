// Checks at start, before anything is opened, of what the configuration points at: the catalogue
// file, the data directory and the PostgreSQL server. Each failure is one StartupError naming the
// variable to fix; the deeper layers would otherwise fail later with a pool warning and a stack
// trace (knex logs "Acquire connection error" with the pg stack before rejecting).
import fs from 'node:fs';
import net from 'node:net';
import pg from 'pg';
import { parseCatalogue } from '../catalogue/load.ts';
import type { Config } from '../config.ts';

/** A start-up failure an operator fixes by changing `variable`. */
export class StartupError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable}: ${detail}`);
  }
}

const DATABASE_CONNECT_TIMEOUT_MS = 10_000;

export async function preflight(config: Config): Promise<void> {
  // Ports first: a crash-looping container learns in a moment, not after migrations. The real
  // listen can still lose a race; its error is reported the same way (startup-errors.ts).
  await checkPortFree(config.host, config.port);
  if (config.metricsPort !== undefined) await checkPortFree(config.metricsHost, config.metricsPort);
  checkCatalogue(config.cataloguePath);
  checkDataDir(config.dataDir);
  if (config.databaseUrl) await checkDatabase(config.databaseUrl);
}

/** Rejects with the listen error itself (EADDRINUSE, EACCES, EADDRNOTAVAIL) when the port cannot be had. */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

export function checkCatalogue(file: string): void {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new StartupError('CATALOGUE_PATH', code === 'ENOENT' ? `${file} does not exist` : `cannot read ${file} (${code ?? (error as Error).message})`);
  }
  const parsed = parseCatalogue(text, file);
  if (!parsed.ok) {
    const problems = parsed.errors.map((e) => oneLine(e.startsWith(file) ? e.slice(file.length).replace(/^:\s*/, '') : e));
    throw new StartupError(
      'CATALOGUE_PATH',
      `${file} is not a valid catalogue (${problems.length} problem${problems.length > 1 ? 's' : ''}): ${problems.join('; ')}`,
    );
  }
}

export function checkDataDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (error) {
    const who = typeof process.getuid === 'function' ? ` (uid ${process.getuid()})` : '';
    throw new StartupError(
      'DATA_DIR',
      `${dir} is not a writable directory for this process${who}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

/** One connection and `select 1`, with a deadline: the pool would wait 60 s and then blame itself. */
export async function checkDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS });
  client.on('error', () => undefined); // a late socket error after a failed connect must not crash
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    throw new StartupError('DATABASE_URL', describeDatabaseError(error, url));
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Says what went wrong and where, never with the password. */
export function describeDatabaseError(error: unknown, url: string): string {
  const parsed = safeUrl(url);
  const where = parsed ? `${parsed.hostname || parsed.searchParams.get('host') || 'localhost'}:${parsed.port || '5432'}` : 'the server';
  const user = parsed?.username ? decodeURIComponent(parsed.username) : undefined;
  const database = parsed?.pathname.slice(1) ? decodeURIComponent(parsed.pathname.slice(1)) : undefined;
  const e = error as { code?: string; message?: string; errors?: Array<{ code?: string }> };
  // Node reports a refused "localhost" (IPv4 and IPv6 tried) as an AggregateError without a message.
  const code = e.code ?? e.errors?.[0]?.code;
  const message = oneLine(e.message || code || String(error));
  switch (code) {
    case 'ECONNREFUSED':
      return `nothing accepts connections at ${where} (connection refused); is PostgreSQL running there?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host of ${where} cannot be resolved (${code})`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${where} cannot be reached (${code})`;
    case '28P01':
    case '28000':
      return `PostgreSQL at ${where} refused the credentials${user ? ` of user "${user}"` : ''}: ${message}`;
    case '3D000':
      return `database ${database ? `"${database}" ` : ''}does not exist on ${where}`;
    default:
      if (/timeout/i.test(message)) return `no answer from ${where} within ${DATABASE_CONNECT_TIMEOUT_MS / 1000} s`;
      return `cannot use PostgreSQL at ${where}: ${message}`;
  }
}

function safeUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
