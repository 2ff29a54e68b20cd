// Which forward proxy, if any, a provider call goes through: `HTTPS_PROXY` for https URLs,
// `HTTP_PROXY` for http ones, none for a host `NO_PROXY` names. One rule for both clients: the
// relay's undici pools (http.ts) and the task providers' got instances (task-client.ts).
//
// NO_PROXY, as curl, Go and undici read it: entries separated by commas or spaces; `*` alone
// bypasses the proxy for everything; `example.com` (also written `.example.com` or `*.example.com`)
// matches that host and every subdomain; `host:port` only that port; an IP address only itself.
// Sandbox providers are never proxied: they are simulators on this machine's loopback.

export interface NoProxyEntry {
  host: string;
  port: number | undefined;
}

export interface EgressProxy {
  http: URL | undefined;
  https: URL | undefined;
  /** `all`: the `*` entry. */
  noProxy: readonly NoProxyEntry[] | 'all';
}

/** A proxy URL as the environment gives it; a bare `host:port` means http. Throws a one-line message. */
export function parseProxyUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new Error('must be a proxy URL such as http://proxy.internal:3128');
  }
  if (!['http:', 'https:'].includes(url.protocol) || !url.hostname)
    throw new Error('must be an http:// or https:// proxy URL such as http://proxy.internal:3128');
  return url;
}

export function parseNoProxy(raw: string): EgressProxy['noProxy'] {
  const entries: NoProxyEntry[] = [];
  for (const token of raw.split(/[,\s]+/)) {
    const entry = token.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return 'all';
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry); // [::1]:8080
    const hostPort = /^([^:]+):(\d+)$/.exec(entry); // host:port (an IPv6 literal has several colons)
    const [host, port] = bracketed ? [bracketed[1]!, bracketed[2]] : hostPort ? [hostPort[1]!, hostPort[2]] : [entry, undefined];
    entries.push({ host: host.replace(/^\*?\./, ''), port: port === undefined ? undefined : Number(port) });
  }
  return entries;
}

const defaultPort = (url: URL) => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

/** The proxy `url` goes through under `settings`; undefined: connect directly. */
export function proxyFor(settings: EgressProxy | undefined, url: URL): URL | undefined {
  if (!settings) return undefined;
  const proxy = url.protocol === 'https:' ? settings.https : url.protocol === 'http:' ? settings.http : undefined;
  if (!proxy || settings.noProxy === 'all') return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = defaultPort(url);
  const bypassed = settings.noProxy.some(
    (entry) => (entry.port === undefined || entry.port === port) && (host === entry.host || host.endsWith(`.${entry.host}`)),
  );
  return bypassed ? undefined : proxy;
}

/** The settings from the three variables (undefined when neither proxy is set). */
export function egressProxy(variables: { httpProxy?: URL; httpsProxy?: URL; noProxy?: EgressProxy['noProxy'] }): EgressProxy | undefined {
  if (!variables.httpProxy && !variables.httpsProxy) return undefined;
  return { http: variables.httpProxy, https: variables.httpsProxy, noProxy: variables.noProxy ?? [] };
}

/** The proxy as it may appear in a log: scheme, host and port, never its credentials. */
export const proxyForLog = (proxy: URL): string => `${proxy.protocol}//${proxy.host}`;
