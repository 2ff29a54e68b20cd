import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { backoffMs } from '../../../src/domain/alerts/delivery.ts';
import { webhookEgress } from '../../../src/domain/alerts/egress.ts';
import { newWebhookSecret, signature, signedHeaders } from '../../../src/domain/alerts/signature.ts';

describe('webhooks: Standard Webhooks signatures, egress rules, backoff', () => {
  it('signs "<id>.<timestamp>.<body>" with HMAC-SHA256 keyed by the base64 part of the whsec_ secret', () => {
    const secret = newWebhookSecret();
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newWebhookSecret()).to.not.equal(secret);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect(key).to.have.length(32);
    const body = '{"type":"balance.low"}';
    const expected = createHmac('sha256', key).update(`msg_1.1700000000.${body}`).digest('base64');
    expect(signature(secret, 'msg_1', 1700000000, body)).to.equal(`v1,${expected}`);
    expect(signedHeaders(secret, 'msg_1', body, 1700000000_999)).to.deep.equal({
      'content-type': 'application/json',
      'webhook-id': 'msg_1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': `v1,${expected}`,
    });
    expect(signature(secret, 'msg_1', 1700000000, `${body} `)).to.not.equal(`v1,${expected}`);
  });

  it('refuses internal addresses as provider-named URLs are refused, except those allowed', () => {
    const strict = webhookEgress([]);
    for (const url of [
      'http://127.0.0.1/x',
      'http://[::1]/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/',
      'http://[::ffff:192.168.0.1]/',
      'http://0.0.0.0/',
    ])
      expect(strict.refusal(url), url).to.match(/address; webhooks go to public addresses only/);
    expect(strict.refusal('https://hooks.example.com/x')).to.equal(undefined);
    expect(strict.refusal('https://203.0.114.9/x')).to.equal(undefined);
    expect(strict.refusal('file:///etc/passwd')).to.equal('webhook_url must be an http(s) URL.');
    const allowing = webhookEgress(['127.0.0.1', '10.0.0.0/8']);
    expect(allowing.refusal('http://127.0.0.1:9000/x')).to.equal(undefined);
    expect(allowing.refusal('http://10.200.0.1/x')).to.equal(undefined);
    expect(allowing.refusal('http://127.0.0.2/x')).to.match(/loopback/);
    expect(allowing.refusal('http://192.168.1.1/x')).to.match(/private/);
  });

  it('backs off exponentially from the base, at most 6 hours', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, 5_000))).to.deep.equal([5_000, 10_000, 20_000, 40_000]);
    expect(backoffMs(30, 5_000)).to.equal(6 * 3_600_000);
  });
});
