// Where the gateway may connect when a provider's answer names the URL (a supplier CDN link in a
// finished task): not into its own network. Without this, an answer naming
// http://127.0.0.1:<METRICS_PORT>/metrics (or a cloud metadata address, or a neighbour on the
// private network) would have the gateway fetch it and stream it to a customer.
//
// The check is on the address the socket connects to: a host name is resolved once, by the
// lookup given to the connection, and refused there when any of its addresses is internal (no
// second resolution can differ: no DNS-rebinding gap). Node skips the lookup for IP literals, so
// those are checked before the request starts. The provider's own origin (scheme, host and port
// of its base_url) is exempt: its answers already come from there, so a sandbox or a test
// provider on loopback still serves its files, while any other internal address stays refused.
import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

export type AddressClass = 'loopback' | 'private' | 'link-local' | 'unspecified' | 'carrier-grade-nat' | 'multicast' | 'reserved';

const RANGES: ReadonlyArray<readonly [AddressClass, string, number, 'ipv4' | 'ipv6']> = [
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['carrier-grade-nat', '100.64.0.0', 10, 'ipv4'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['link-local', '169.254.0.0', 16, 'ipv4'], // cloud metadata services live here
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['reserved', '192.0.2.0', 24, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['reserved', '198.51.100.0', 24, 'ipv4'],
  ['reserved', '203.0.113.0', 24, 'ipv4'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'], // and the broadcast address
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  ['reserved', '::', 96, 'ipv6'], // IPv4-compatible addresses (deprecated)
  ['reserved', '100::', 64, 'ipv6'],
  ['reserved', '2001:db8::', 32, 'ipv6'],
  ['private', 'fc00::', 7, 'ipv6'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['private', 'fec0::', 10, 'ipv6'], // site-local (deprecated)
  ['multicast', 'ff00::', 8, 'ipv6'],
];

// One list per class, in the order above (the more specific IPv6 entries first). BlockList also
// matches an IPv4-mapped IPv6 address (::ffff:127.0.0.1) against the IPv4 ranges.
const LISTS: ReadonlyArray<readonly [AddressClass, BlockList]> = RANGES.map(([addressClass, network, prefix, family]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return [addressClass, list] as const;
});

/** IPv6 forms that carry an IPv4 address in their last 32 bits and reach it: NAT64 and 6to4 (bits 16-48). */
function embeddedIPv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^64:ff9b::(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const nat64 = /^64:ff9b::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (nat64) return fromHex(nat64[1]!, nat64[2]!);
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(?::|$)/.exec(lower);
  return sixToFour ? fromHex(sixToFour[1]!, sixToFour[2]!) : undefined;
}
const fromHex = (high: string, low: string) => {
  const value = (parseInt(high, 16) << 16) | parseInt(low, 16);
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
};

/** The class of an internal address; undefined for a public one (or for something that is not an IP). */
export function internalAddressClass(address: string): AddressClass | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''); // brackets of a URL host, a zone id
  const family = isIP(bare);
  if (family === 0) return undefined;
  if (family === 6) {
    const inner = embeddedIPv4(bare);
    if (inner) return internalAddressClass(inner);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [addressClass, list] of LISTS) if (list.check(bare, type)) return addressClass;
  return undefined;
}

/** A connection the guard refused: the code survives got's wrapping, the class goes to the operator's log. */
export class EgressRefusedError extends Error {
  readonly code = 'ERR_EGRESS_REFUSED';
  constructor(readonly addressClass: AddressClass) {
    super(`connection to a ${addressClass} address refused`);
  }
}

/** The refusal of a URL whose host is an IP literal (no lookup will run for it); undefined otherwise. */
export function refusedLiteral(url: URL): EgressRefusedError | undefined {
  const addressClass = internalAddressClass(url.hostname);
  return addressClass ? new EgressRefusedError(addressClass) : undefined;
}

/** A resolver for the connection (`lookup` of net.connect, `dnsLookup` of got) that refuses internal addresses. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return void callback(error, '', 0);
    for (const { address } of addresses) {
      const addressClass = internalAddressClass(address);
      if (addressClass) return void callback(new EgressRefusedError(addressClass), '', 0);
    }
    if (options.all) return void (callback as unknown as (e: null, all: dns.LookupAddress[]) => void)(null, addresses);
    const [chosen] = addresses;
    if (!chosen) return void callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
    callback(null, chosen.address, chosen.family);
  });
};

/**
 * The refusal of a host name that resolves to an internal address, checked before a request that
 * goes through a forward proxy (the proxy resolves the name again: its own rules must keep it
 * out of the private network as well; docs/operations.md says so).
 */
export async function refusedName(hostname: string): Promise<EgressRefusedError | undefined> {
  if (isIP(hostname.replace(/^\[|\]$/g, ''))) return undefined; // literals: refusedLiteral
  // A name only the proxy can resolve (DNS kept behind it) is the proxy's to judge.
  const addresses = await dns.promises.lookup(hostname, { all: true }).catch(() => []);
  for (const { address } of addresses) {
    const addressClass = internalAddressClass(address);
    if (addressClass) return new EgressRefusedError(addressClass);
  }
  return undefined;
}

/** Whether `url` is at the provider's own origin (the exemption): same scheme, host and port as its base_url. */
export function atProviderOrigin(url: URL, baseUrl: string | undefined): boolean {
  if (!baseUrl) return false;
  try {
    return new URL(baseUrl).origin === url.origin;
  } catch {
    return false;
  }
}
