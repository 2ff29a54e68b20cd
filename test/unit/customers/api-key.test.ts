import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { generateApiKey, hashApiKey, looksLikeApiKey, redactApiKey } from '../../../src/customers/api-key.ts';

describe('API keys', () => {
  it('are the service prefix plus 40 base62 characters, all different', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateApiKey('sk-gw-')));
    expect(keys.size).to.equal(200);
    for (const key of keys) expect(key).to.match(/^sk-gw-[0-9A-Za-z]{40}$/);
  });

  it('hash to a SHA-256 digest that does not contain the key', () => {
    const key = generateApiKey('sk-gw-');
    const digest = hashApiKey(key);
    expect(digest).to.match(/^[0-9a-f]{64}$/);
    expect(digest).to.equal(hashApiKey(key));
    expect(digest).to.not.include(key.slice(6, 20));
  });

  it('hash to the digest stored for keys made before (the one-shot hash is the same SHA-256 as a Hash object)', () => {
    for (const key of [generateApiKey('sk-gw-'), 'sk-gw-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn', 'sk-gw-é']) {
      expect(hashApiKey(key)).to.equal(createHash('sha256').update(key).digest('hex'));
    }
  });

  it('redact to the prefix, four characters and the last four', () => {
    const key = 'sk-gw-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn';
    expect(redactApiKey(key, 'sk-gw-')).to.equal('sk-gw-ABCD…klmn');
  });

  it('reject anything not shaped like a key before any lookup', () => {
    const key = generateApiKey('sk-gw-');
    expect(looksLikeApiKey(key, 'sk-gw-')).to.equal(true);
    expect(looksLikeApiKey(key.slice(0, -1), 'sk-gw-')).to.equal(false);
    expect(looksLikeApiKey(`sk-xx-${key.slice(6)}`, 'sk-gw-')).to.equal(false);
    expect(looksLikeApiKey(`${key.slice(0, -1)}!`, 'sk-gw-')).to.equal(false);
    expect(looksLikeApiKey('', 'sk-gw-')).to.equal(false);
  });
});
