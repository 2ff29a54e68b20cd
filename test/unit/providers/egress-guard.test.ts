import { expect } from 'chai';
import { atProviderOrigin, guardedLookup, internalAddressClass } from '../../../src/providers/egress-guard.ts';

describe('egress guard: which addresses a provider-named URL may not reach', () => {
  it('classifies internal IPv4 and IPv6 addresses, embedded IPv4 forms included', () => {
    const table: Array<[string, string | undefined]> = [
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'link-local'],
      ['100.64.0.1', 'carrier-grade-nat'],
      ['0.0.0.0', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'reserved'],
      ['::1', 'loopback'],
      ['[::1]', 'loopback'],
      ['::', 'unspecified'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['::ffff:10.0.0.1', 'private'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['fd12:3456::1', 'private'],
      ['ff02::1', 'multicast'],
      ['64:ff9b::7f00:1', 'loopback'],
      ['64:ff9b::169.254.169.254', 'link-local'],
      ['2002:7f00:1::', 'loopback'],
      ['::127.0.0.1', 'reserved'],
      // public
      ['8.8.8.8', undefined],
      ['172.32.0.1', undefined],
      ['100.128.0.1', undefined],
      ['2606:4700:4700::1111', undefined],
      ['::ffff:8.8.8.8', undefined],
      ['64:ff9b::808:808', undefined],
      ['example.com', undefined], // not an address: the lookup checks what it resolves to
    ];
    for (const [address, expected] of table) expect(internalAddressClass(address), address).to.equal(expected);
  });

  it('refuses a name that resolves to loopback at lookup time, with the class', async () => {
    const error = await new Promise<unknown>((resolve) => guardedLookup('localhost', {}, (e) => resolve(e)));
    expect(error).to.include({ code: 'ERR_EGRESS_REFUSED', addressClass: 'loopback' });
  });

  it('exempts only the provider’s own origin: scheme, host and port of its base_url', () => {
    const base = 'http://127.0.0.1:4010/api/v3';
    expect(atProviderOrigin(new URL('http://127.0.0.1:4010/assets/a.mp4?sig=1'), base)).to.equal(true);
    expect(atProviderOrigin(new URL('http://127.0.0.1:9464/metrics'), base)).to.equal(false);
    expect(atProviderOrigin(new URL('http://localhost:4010/assets/a.mp4'), base)).to.equal(false);
    expect(atProviderOrigin(new URL('https://127.0.0.1:4010/a'), base)).to.equal(false);
    expect(atProviderOrigin(new URL('http://127.0.0.1:4010/a'), undefined)).to.equal(false);
  });
});
