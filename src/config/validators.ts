// The validators of the environment schema (src/config/env.ts): each refuses a bad value with one
// line that says what is expected, and never echoes a value that may be a secret.
import { isIP } from 'node:net';
import { EnvError, host, makeValidator } from 'envalid';
import { pino } from 'pino';
import { parseNoProxy, parseProxyUrl, type EgressProxy } from '../shared/egress-proxy.ts';

export const integer = (min: number, max: number) =>
  makeValidator<number>((raw) => {
    const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!(value >= min && value <= max)) throw new EnvError(`must be a whole number from ${min} to ${max}, got "${raw}"`);
    return value;
  });

// envalid's bool is case-sensitive; keep the words this gateway always accepted, in any case.
export const flag = makeValidator<boolean>((raw) => {
  const word = raw.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(word)) return true;
  if (['0', 'false', 'no', 'off'].includes(word)) return false;
  throw new EnvError(`must be true or false, got "${raw}"`);
});

export const LOG_LEVELS = [...Object.keys(pino.levels.values), 'silent'] as const;
export const logLevel = makeValidator<string>((raw) => {
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) throw new EnvError(`must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return raw;
});

// The value itself is never repeated: it carries the database password.
export const postgresUrl = makeValidator<string>((raw) => {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    /* reported below */
  }
  if (!url || !['postgres:', 'postgresql:'].includes(url.protocol) || (!url.hostname && !url.searchParams.get('host'))) {
    throw new EnvError('must be a PostgreSQL URL such as postgres://user:password@host:5432/database (the value is not shown: it may hold a password)');
  }
  return raw;
});

export const publicUrl = makeValidator<string>((raw) => {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.pathname.replace(/\/$/, '') !== '' || url.search || url.username)
    throw new EnvError(`must be an http(s) origin such as https://gateway.example.com or http://127.0.0.1:8081, got "${raw}"`);
  return url.origin;
});

/** Express's `trust proxy`: false, true, a hop count, or addresses and subnets (`loopback, 10.0.0.0/8`). */
export const trustProxy = makeValidator<boolean | number | string>((raw) => {
  const value = raw.trim();
  if (value === 'false' || value === '') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const named = new Set(['loopback', 'linklocal', 'uniquelocal']);
  for (const part of value.split(',').map((p) => p.trim())) {
    const [address, bits] = part.split('/');
    if (named.has(part) || (address && isIP(address) && (bits === undefined || /^\d{1,3}$/.test(bits)))) continue;
    throw new EnvError(`must be false, true, a hop count, or addresses and subnets separated by commas (loopback, 10.0.0.0/8), got "${part}"`);
  }
  return value;
});

export const adminToken = makeValidator<string>((raw) => {
  if (raw.length < 12 || /\s/.test(raw))
    throw new EnvError('must be at least 12 characters without spaces (e.g. openssl rand -hex 24); the value is not shown');
  return raw;
});

export const keyPrefix = makeValidator<string>((raw) => {
  if (!/^[A-Za-z0-9_-]{2,16}$/.test(raw)) throw new EnvError(`must be 2-16 characters of [A-Za-z0-9_-], got "${raw}"`);
  return raw;
});

export const listenHost = makeValidator<string>((raw) => {
  // envalid's host() knows IPv4, IPv6 and domain names; "localhost" is a name too.
  try {
    return host()._parse(raw) as string;
  } catch {
    throw new EnvError(`must be an IP address or a host name, got "${raw}"`);
  }
});

/** `*` (any origin), or the exact origins allowed; an empty set turns CORS off. */
export type CorsOrigins = '*' | ReadonlySet<string>;

export const corsOrigins = makeValidator<CorsOrigins>((raw) => {
  const value = raw.trim();
  if (value === '*') return '*';
  if (value.toLowerCase() === 'none') return new Set<string>();
  const origins = value
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      /* reported below */
    }
    // Compared as browsers send them: scheme, lower-case host and a port only when not the default.
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== origin)
      throw new EnvError(`must be *, none, or origins such as https://app.example.com separated by commas; "${origin}" is not an origin as a browser sends it`);
  }
  if (origins.length === 0) throw new EnvError('must be *, none, or origins such as https://app.example.com separated by commas');
  return new Set(origins);
});

/**
 * The schema. `default: undefined` marks an optional variable with no fixed default; when the
 * default is computed (see loadConfig), `DEFAULT_SHOWN` says what docs/configuration.md shows instead.
 */

/** A forward proxy for provider calls. Its credentials (user:password@) are never repeated. */
export const proxyUrl = makeValidator<URL>((raw) => {
  try {
    return parseProxyUrl(raw);
  } catch (error) {
    throw new EnvError(`${(error as Error).message} (the value is not shown: it may hold a password)`);
  }
});

export const noProxy = makeValidator<EgressProxy['noProxy']>((raw) => parseNoProxy(raw));

/** Addresses and subnets (`127.0.0.1`, `::1`, `10.0.0.0/8`), separated by commas or spaces; `none`: empty. */
export const addressList = makeValidator<string[]>((raw) => {
  if (raw.trim().toLowerCase() === 'none') return [];
  const entries = raw.split(/[\s,]+/).filter(Boolean);
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    const bits = family === 6 ? 128 : 32;
    if (family === 0 || (prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= bits)))
      throw new EnvError(`must be IP addresses or subnets (127.0.0.1, 10.0.0.0/8, ::1) separated by commas; "${entry}" is not one`);
  }
  return entries;
});
