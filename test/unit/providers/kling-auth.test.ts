import { expect } from 'chai';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { createKlingTokens, parseKlingCredential, RENEW_WITHIN_S, TOKEN_LIFETIME_S, type KlingKeys } from '../../../src/providers/kling/auth.ts';
import { resolveProviders } from '../../../src/providers/registry.ts';
import type { ProviderEntry } from '../../../src/catalogue/types.ts';

const keys: KlingKeys = { accessKey: 'ak-test-0001', secretKey: 'sk-test-secret-0001' };
const secret = (k: KlingKeys) => new TextEncoder().encode(k.secretKey);
const T0 = Date.UTC(2026, 10, 26, 9, 0, 0); // ms

/** A clock the test moves, in whole seconds from T0. */
function clock() {
  let seconds = 0;
  return { now: () => T0 + seconds * 1000, advance: (s: number) => void (seconds += s) };
}

describe('Kling auth: the HS256 JWT from the access key and secret key', () => {
  it('signs header {alg: HS256, typ: JWT} and payload {iss: AK, exp: now + 1800, nbf: now - 5}, verifiable with the secret key', async () => {
    const time = clock();
    const token = await createKlingTokens(time.now).token(keys);
    expect(decodeProtectedHeader(token)).to.deep.equal({ alg: 'HS256', typ: 'JWT' });
    const now = T0 / 1000;
    const { payload } = await jwtVerify(token, secret(keys), { algorithms: ['HS256'], currentDate: new Date(T0) });
    expect(payload).to.deep.equal({ iss: 'ak-test-0001', exp: now + 1800, nbf: now - 5 });
    // Another secret does not verify it.
    const wrong = await jwtVerify(token, secret({ ...keys, secretKey: 'other' }), { currentDate: new Date(T0) }).catch((e: Error) => e);
    expect(wrong).to.be.instanceOf(Error);
  });

  it('keeps one token per credential while more than 5 minutes of it remain, then renews it', async () => {
    const time = clock();
    const tokens = createKlingTokens(time.now);
    const first = await tokens.token(keys);
    time.advance(TOKEN_LIFETIME_S - RENEW_WITHIN_S - 1); // 301 s left
    expect(await tokens.token(keys)).to.equal(first);
    time.advance(1); // exactly 300 s left: renewed
    const second = await tokens.token(keys);
    expect(second).to.not.equal(first);
    const { payload } = await jwtVerify(second, secret(keys), { currentDate: new Date(time.now()) });
    expect(payload.exp).to.equal(time.now() / 1000 + TOKEN_LIFETIME_S);
    // Another credential has its own token.
    const other = await tokens.token({ accessKey: 'ak-2', secretKey: 'sk-2' });
    expect(other).to.not.equal(second);
    expect((await jwtVerify(other, secret({ accessKey: 'ak-2', secretKey: 'sk-2' }), { currentDate: new Date(time.now()) })).payload.iss).to.equal('ak-2');
    expect(await tokens.token(keys)).to.equal(second);
  });

  it('never serves an expired token, and forgets one Kling refused', async () => {
    const time = clock();
    const tokens = createKlingTokens(time.now);
    const first = await tokens.token(keys);
    time.advance(TOKEN_LIFETIME_S + 60); // the process slept past its expiry
    const after = await tokens.token(keys);
    expect(after).to.not.equal(first);
    await jwtVerify(after, secret(keys), { currentDate: new Date(time.now()) }); // valid now
    const expired = await jwtVerify(first, secret(keys), { currentDate: new Date(time.now()) }).catch((e: { code?: string }) => e.code);
    expect(expired).to.equal('ERR_JWT_EXPIRED');
    tokens.forget(keys);
    time.advance(1);
    expect(await tokens.token(keys)).to.not.equal(after);
  });

  it('reads ACCESS_KEY:SECRET_KEY, and says what is wrong with another shape without quoting it', () => {
    expect(parseKlingCredential('AK123:SK:with:colons')).to.deep.equal({ accessKey: 'AK123', secretKey: 'SK:with:colons' });
    const problems = ['AK123SK456', ':SK456', 'AK123:', 'AK 1:SK', ''].map((value) => parseKlingCredential(value));
    for (const problem of problems) expect(problem).to.be.a('string');
    expect(problems[0]).to.match(/ACCESS_KEY:SECRET_KEY.*no colon/);
    expect(problems[1]).to.match(/access key is empty/);
    expect(problems[2]).to.match(/secret key is empty/);
    for (const problem of problems) expect(problem).to.not.match(/AK123|SK456/);
  });

  it('the registry leaves a Kling provider with a malformed credential disabled, and logs which variable, never its value', () => {
    const entries: ProviderEntry[] = [
      { id: 'kling', protocol: 'kling-video', base_url: 'https://api-singapore.klingai.com', credential_env: 'KLING_API_KEY' },
      { id: 'ark', protocol: 'ark-video', base_url: 'https://ark.example/api/v3', credential_env: 'ARK_API_KEY' },
    ];
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const logger = { error: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }) };
    const options = { sandbox: false, sandboxUrls: new Map<string, string>() };
    const refused = resolveProviders(
      entries,
      { ...options, env: { KLING_API_KEY: 'secretvalue-without-colon', ARK_API_KEY: 'k' } },
      { logger: logger as never },
    );
    expect([...refused.keys()]).to.deep.equal(['ark']);
    expect(lines).to.have.length(1);
    expect(lines[0]!.fields).to.deep.equal({ provider: 'kling', credential_env: 'KLING_API_KEY' });
    expect(lines[0]!.message).to.match(/^provider disabled: KLING_API_KEY must be ACCESS_KEY:SECRET_KEY/);
    expect(JSON.stringify(lines)).to.not.include('secretvalue');
    const enabled = resolveProviders(entries, { ...options, env: { KLING_API_KEY: 'ak:sk' } }, { logger: logger as never });
    expect([...enabled.keys()]).to.deep.equal(['kling']);
    expect(lines).to.have.length(1);
  });
});
