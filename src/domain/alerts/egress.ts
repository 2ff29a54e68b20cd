// Where webhooks may go: the same address rules as provider-named URLs (src/providers/egress-guard.ts:
// no loopback, private, link-local or other internal target, checked on the address connected
// to), except addresses and subnets the operator allows (WEBHOOK_ALLOW_INTERNAL: a receiver on the
// private network, or a test's on loopback).
import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { EgressRefusedError, internalAddressClass } from '../../providers/index.ts';

export interface WebhookEgress {
  /** Why this URL may not be a webhook target (a malformed URL, another scheme, an internal IP literal); undefined: it may. */
  refusal(url: string): string | undefined;
  /** A resolver for the connection that refuses internal addresses outside the allowed ones. */
  lookup: LookupFunction;
}

/** `127.0.0.1`, `::1`, `10.0.0.0/8`, `fd00::/8`: the internal addresses webhooks may reach anyway. */
export function webhookEgress(allowed: readonly string[]): WebhookEgress {
  const list = new BlockList();
  for (const entry of allowed) {
    const [address, prefix] = entry.split('/');
    const family = isIP(address ?? '') === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address!, family);
    else list.addSubnet(address!, Number(prefix), family);
  }
  const refused = (address: string) => {
    const bare = address.replace(/^\[|\]$/g, '');
    const addressClass = internalAddressClass(bare);
    return addressClass && !list.check(bare, isIP(bare) === 6 ? 'ipv6' : 'ipv4') ? addressClass : undefined;
  };
  return {
    refusal(text) {
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        return 'webhook_url must be an absolute http(s) URL.';
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'webhook_url must be an http(s) URL.';
      if (url.username || url.password) return 'webhook_url must not carry credentials; verify deliveries by their signature.';
      const addressClass = refused(url.hostname);
      return addressClass ? `webhook_url names a ${addressClass} address; webhooks go to public addresses only.` : undefined;
    },
    lookup: (hostname, options, callback) => {
      dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return void callback(error, '', 0);
        for (const { address } of addresses) {
          const addressClass = refused(address);
          if (addressClass) return void callback(new EgressRefusedError(addressClass), '', 0);
        }
        if (options.all) return void (callback as unknown as (e: null, all: dns.LookupAddress[]) => void)(null, addresses);
        const [chosen] = addresses;
        if (!chosen) return void callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        callback(null, chosen.address, chosen.family);
      });
    },
  };
}
