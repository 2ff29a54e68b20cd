import { expect } from 'chai';
import { arkSubmitRefusal } from '../../../src/providers/ark/errors.ts';
import { minimaxStatusRefusal, minimaxSubmitRefusal } from '../../../src/providers/minimax/errors.ts';
import { openaiVideosSubmitRefusal } from '../../../src/providers/openai-videos/errors.ts';
import { isConcurrencyRefusal } from '../../../src/providers/refusals.ts';
import { UpstreamError } from '../../../src/providers/types.ts';

const refused = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new UpstreamError('status', status === 429 || status >= 500, status, JSON.stringify(body), undefined, headers);
const ark = (status: number, code: string, message = 'x') => refused(status, { error: { code, message, type: 'TooManyRequests' } }, { 'retry-after': '7' });

/** What the gateway's queue reads of a refusal: status, code in the body, whether it waits. */
const seen = (error: UpstreamError) => ({
  status: error.status,
  code: (JSON.parse(error.body ?? '{}') as { error?: { code?: string } }).error?.code,
  waits: isConcurrencyRefusal(error),
});

// Issue 25's contract between adapters and the gateway's queue: an account that is full answers
// 429 provider_concurrency (the task waits and is sent again), an account an operator must fix
// answers 503 provider_account (the task fails, the provider's text stays in the log).
describe("video adapters name their provider's refusals of a new task for the queue", () => {
  it('Ark: every throttle and the cap of queued tasks wait; a trial quota used up, a spending cap or arrears do not', () => {
    for (const code of [
      'QuotaExceeded',
      'RateLimitExceeded.EndpointRPMExceeded',
      'ModelAccountRpmRateLimitExceeded',
      'InflightBatchsizeExceeded',
      'ServerOverloaded',
    ])
      expect(seen(arkSubmitRefusal(ark(429, code))), code).to.deep.equal({ status: 429, code: 'provider_concurrency', waits: true });
    expect(arkSubmitRefusal(ark(429, 'QuotaExceeded')).headers).to.deep.equal({ 'retry-after': '7' });
    const trial = ark(429, 'QuotaExceeded', 'Your account has exhausted its free trial quota for the model. Request id: 0217');
    expect(seen(arkSubmitRefusal(trial))).to.deep.equal({ status: 503, code: 'provider_account', waits: false });
    expect(seen(arkSubmitRefusal(ark(429, 'SetLimitExceeded')))).to.deep.equal({ status: 503, code: 'provider_account', waits: false });
    expect(seen(arkSubmitRefusal(ark(403, 'AccountOverdueError')))).to.deep.equal({ status: 503, code: 'provider_account', waits: false });
    const invalid = ark(400, 'InvalidParameter');
    expect(arkSubmitRefusal(invalid)).to.equal(invalid);
    const timeout = new UpstreamError('timeout', true);
    expect(arkSubmitRefusal(timeout)).to.equal(timeout);
  });

  it('MiniMax: HTTP 429 and status 1002 wait; 402 and 1008 (balance) do not; other codes stay refusals', () => {
    const v2 = (status: number, type: string) => refused(status, { type: 'error', error: { type, message: `m (${status})`, http_code: String(status) } });
    expect(seen(minimaxSubmitRefusal(v2(429, 'rate_limit_error')))).to.deep.equal({ status: 429, code: 'provider_concurrency', waits: true });
    expect(seen(minimaxSubmitRefusal(v2(402, 'insufficient_balance_error')))).to.deep.equal({ status: 503, code: 'provider_account', waits: false });
    expect(seen(minimaxStatusRefusal(1002, 'rate limit'))).to.deep.equal({ status: 429, code: 'provider_concurrency', waits: true });
    expect(seen(minimaxStatusRefusal(1008, 'insufficient balance'))).to.deep.equal({ status: 503, code: 'provider_account', waits: false });
    expect(seen(minimaxStatusRefusal(1026, 'input is sensitive'))).to.deep.equal({ status: 400, code: undefined, waits: false });
  });

  it('OpenAI videos: a rate limit waits, insufficient_quota does not', () => {
    const openai = (code: string) => refused(429, { error: { message: 'm', type: 'requests', code } });
    expect(seen(openaiVideosSubmitRefusal(openai('rate_limit_exceeded')))).to.deep.equal({ status: 429, code: 'provider_concurrency', waits: true });
    expect(seen(openaiVideosSubmitRefusal(openai('insufficient_quota')))).to.deep.equal({ status: 503, code: 'provider_account', waits: false });
  });

  it('the bodies are in the OpenAI error shape and carry no upstream text', () => {
    const body = JSON.parse(arkSubmitRefusal(ark(429, 'QuotaExceeded', 'secret detail Request id: 0217abc')).body!);
    expect(body).to.deep.equal({ error: { message: 'Ark throttled the account: QuotaExceeded', type: 'rate_limit_error', code: 'provider_concurrency' } });
  });
});
