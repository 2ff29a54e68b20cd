import { expect } from 'chai';
import { loadConfig } from '../../../src/config.ts';
import { egressProxy, parseNoProxy, parseProxyUrl, proxyFor } from '../../../src/shared/egress-proxy.ts';

describe('egress proxy settings (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)', () => {
  const settings = (noProxy: string) =>
    egressProxy({ httpProxy: parseProxyUrl('http://plain-proxy:3128'), httpsProxy: parseProxyUrl('tls-proxy:3129'), noProxy: parseNoProxy(noProxy) });
  const via = (noProxy: string, url: string) => proxyFor(settings(noProxy), new URL(url))?.host;

  it('picks the proxy by the URL’s scheme; a bare host:port proxy is http', () => {
    expect(via('', 'https://api.anthropic.com/v1/messages')).to.equal('tls-proxy:3129');
    expect(via('', 'http://provider.internal/v1')).to.equal('plain-proxy:3128');
    expect(parseProxyUrl('tls-proxy:3129').protocol).to.equal('http:');
  });

  it('bypasses hosts NO_PROXY names: suffixes cover subdomains, ports narrow, * means all', () => {
    expect(via('example.com', 'https://example.com/x')).to.equal(undefined);
    expect(via('example.com', 'https://cdn.example.com/x')).to.equal(undefined);
    expect(via('.example.com', 'https://cdn.example.com/x')).to.equal(undefined);
    expect(via('*.example.com', 'https://cdn.example.com/x')).to.equal(undefined);
    expect(via('example.com', 'https://notexample.com/x')).to.equal('tls-proxy:3129');
    expect(via('example.com:8443', 'https://example.com/x')).to.equal('tls-proxy:3129');
    expect(via('example.com:8443', 'https://example.com:8443/x')).to.equal(undefined);
    expect(via('example.com:443', 'https://example.com/x'), 'the default port counts').to.equal(undefined);
    expect(via('10.0.0.7 [::1]:8080', 'http://10.0.0.7/x')).to.equal(undefined);
    expect(via('10.0.0.7 [::1]:8080', 'http://[::1]:8080/x')).to.equal(undefined);
    expect(via('10.0.0.7 [::1]:8080', 'http://[::1]:8081/x')).to.equal('plain-proxy:3128');
    expect(via('EXAMPLE.com', 'https://Example.COM/x'), 'case-insensitive').to.equal(undefined);
    expect(via('*', 'https://api.openai.com/x')).to.equal(undefined);
  });

  it('is off without a proxy variable, and reads the lower-case forms when the upper-case ones are unset', () => {
    expect(loadConfig({ NO_PROXY: 'example.com' }).egressProxy).to.equal(undefined);
    const lower = loadConfig({ https_proxy: 'http://lower:1', no_proxy: 'a.example' }).egressProxy!;
    expect(lower.https?.host).to.equal('lower:1');
    expect(lower.noProxy).to.deep.equal([{ host: 'a.example', port: undefined }]);
    expect(loadConfig({ HTTPS_PROXY: 'http://upper:2', https_proxy: 'http://lower:1' }).egressProxy!.https?.host).to.equal('upper:2');
  });

  it('refuses a proxy that is not an http(s) URL in one line that does not repeat its password', () => {
    expect(() => loadConfig({ HTTPS_PROXY: 'socks5://user:hunter2@proxy:1080' }))
      .to.throw(/HTTPS_PROXY must be an http:\/\/ or https:\/\/ proxy URL/)
      .with.property('message')
      .that.does.not.contain('hunter2');
  });
});
