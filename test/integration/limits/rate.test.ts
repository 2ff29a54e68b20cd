import { expect } from 'chai';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { chat, limitedKey, message, tally, video } from '../../helpers/limits.ts';

// Rate and concurrency limits as a client sees them: 429 with retry-after in the endpoint's error
// shape, and the protocol's rate-limit headers on every answer of a key with a rate limit.
describe(`key rate and concurrency limits over HTTP (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(120_000);
  let gateway: TestGateway;
  before(async () => {
    gateway = await startTestGateway();
  });
  after(async () => gateway?.close());

  it('lets exactly requests_per_minute messages through under 12 parallel ones, with Anthropic rate-limit headers', async () => {
    const { key } = await limitedKey(gateway, { requests_per_minute: 5 });
    const { counts, bodies } = await tally(await Promise.all(Array.from({ length: 12 }, () => message(gateway.url, key, 'hi'))));
    expect(counts).to.deep.equal({ 200: 5, 429: 7 });
    const ok = bodies.filter((b) => b.status === 200);
    expect(ok.map((b) => b.headers.get('anthropic-ratelimit-requests-limit'))).to.deep.equal(Array(5).fill('5'));
    expect(ok.map((b) => b.headers.get('anthropic-ratelimit-requests-remaining')).sort()).to.deep.equal(['0', '1', '2', '3', '4']);
    const reset = Date.parse(ok[0]!.headers.get('anthropic-ratelimit-requests-reset')!);
    expect(reset - Date.now()).to.be.within(55_000, 62_000);

    const refused = bodies.find((b) => b.status === 429)!;
    expect(refused.body).to.deep.include({ type: 'error' });
    expect(refused.body.error).to.deep.equal({ type: 'rate_limit_error', message: refused.body.error.message });
    expect(refused.body.error.message).to.match(/limit of 5 requests per minute is reached; retry in \d+ s/);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    expect(refused.headers.get('anthropic-ratelimit-requests-remaining')).to.equal('0');
  });

  it('answers chat completions with x-ratelimit headers, and refuses with rate_limit_exceeded', async () => {
    const { key } = await limitedKey(gateway, { requests_per_minute: 2 });
    const first = await chat(gateway.url, key, 'one');
    const second = await chat(gateway.url, key, 'two');
    const third = await chat(gateway.url, key, 'three');
    expect([first.status, second.status, third.status]).to.deep.equal([200, 200, 429]);
    expect(first.headers.get('x-ratelimit-limit-requests')).to.equal('2');
    expect([first.headers.get('x-ratelimit-remaining-requests'), second.headers.get('x-ratelimit-remaining-requests')]).to.deep.equal(['1', '0']);
    expect(first.headers.get('x-ratelimit-reset-requests')).to.equal('1m0s');
    expect(((await third.json()) as any).error).to.include({ type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null });
    expect(Number(third.headers.get('retry-after'))).to.be.within(1, 60);
  });

  it('keeps at most max_concurrent requests in flight, and never refuses a client that waits for each answer', async () => {
    const { key } = await limitedKey(gateway, { max_concurrent: 2 });
    const slow = await tally(await Promise.all(Array.from({ length: 8 }, () => message(gateway.url, key, 'slow [[sim first_byte_ms=3000]]'))));
    expect(slow.counts).to.deep.equal({ 200: 2, 429: 6 });
    const refused = slow.bodies.find((b) => b.status === 429)!;
    expect(refused.body.error.message).to.match(/limit of 2 concurrent requests is reached/);
    expect(refused.headers.get('retry-after')).to.equal('1');
    // One at a time, each sent the moment the previous answer ended (its settle lands a moment later).
    const { key: single } = await limitedKey(gateway, { max_concurrent: 1 });
    for (let i = 0; i < 10; i++) {
      const response = await message(gateway.url, single, `next ${i}`, { stream: i % 2 === 0 });
      expect(response.status, `request ${i}`).to.equal(200);
      await response.text();
    }
  });

  it('counts video tasks too: a 429 in the OpenAI shape past the rate, x-ratelimit headers on the 202', async () => {
    const { key } = await limitedKey(gateway, { requests_per_minute: 2 });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await video(gateway.url, key, `task ${i} [[sim queued_ms=60000]]`));
    expect(answers.map((a) => a.status)).to.deep.equal([202, 202, 429]);
    expect(answers[1]!.headers.get('x-ratelimit-remaining-requests')).to.equal('0');
    expect(((await answers[2]!.json()) as any).error.code).to.equal('rate_limit_exceeded');
  });

  it('does not count requests refused before a reservation, and sends no rate headers for keys without a rate limit', async () => {
    const { key } = await limitedKey(gateway, { requests_per_minute: 1 });
    const invalid = await message(gateway.url, key, 'hi', { model: 'nobody/nothing' });
    expect(invalid.status).to.equal(404);
    expect((await message(gateway.url, key, 'hi')).status).to.equal(200);
    const { key: plain } = await limitedKey(gateway, { max_concurrent: 10 });
    const answer = await message(gateway.url, plain, 'hi');
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('anthropic-ratelimit-requests-limit')).to.equal(null);
  });
});
