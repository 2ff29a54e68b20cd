import { expect } from 'chai';
import { estimateResponsesInput } from '../../../src/domain/responses/fields.ts';
import type { OpenAIResponsesSimulator } from '../../../src/sandbox/openai-responses/server.ts';
import { formatMicros } from '../../../src/shared/money.ts';
import { RESPONSES_MODEL, responsesCost, responsesExchangeProblems, responsesMicros } from '../../helpers/responses.ts';
import { fundedCustomer } from '../../helpers/factories.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

describe('responses: background: true is an asynchronous task (hold, poll, settle once, cancel, review)', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let primary: OpenAIResponsesSimulator;
  let backup: OpenAIResponsesSimulator;
  let key: string;
  let customerId: string;

  before(async () => {
    gateway = await startTestGateway({ env: { GRANTS: 'false' } });
    primary = gateway.simulators.get('sandbox-openai-responses') as OpenAIResponsesSimulator;
    backup = gateway.simulators.get('sandbox-openai-responses-backup') as OpenAIResponsesSimulator;
  });
  beforeEach(async () => {
    await gateway.reset();
    ({ key, customerId } = await fundedCustomer(gateway, { balance: '5.00' }));
  });
  afterEach(async () => {
    expect(responsesExchangeProblems(primary, backup)).to.deep.equal([]);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
  after(async () => gateway?.close());

  const call = (method: string, path: string, body?: unknown, as = key) =>
    fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${as}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const background = async (input: string, extra: Record<string, unknown> = {}) => {
    const response = await call('POST', '/v1/responses', { model: RESPONSES_MODEL, input, background: true, ...extra });
    return { status: response.status, body: (await response.json()) as any };
  };
  const wallet = async () => (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
  const taskOf = async (responseId: string) => (await gateway.db('video_tasks').where({ upstream_task_id: responseId }).first()) as any;
  const poll = () => gateway.services.videoWorker.processBatch();
  const settlesAndReleases = async () =>
    ((await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=500`)).body.data as any[]).filter(
      (e) => e.kind === 'settle' || e.kind === 'release',
    );
  /** Polls until the task leaves the live statuses (the simulator finishes after queued_ms + running_ms). */
  const pollUntilDone = async (responseId: string) => {
    for (let i = 0; i < 100; i++) {
      await gateway
        .db('video_tasks')
        .where({ upstream_task_id: responseId })
        .update({ next_poll_at: new Date(0) });
      await poll();
      const task = await taskOf(responseId);
      if (!['submitting', 'queued', 'in_progress'].includes(task.status)) return task;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the background response never finished');
  };

  it('holds at create, answers the queued response, and settles once from the usage the poller reads', async () => {
    const input = 'Write a long essay [[sim queued_ms=100 running_ms=100 cached=2]]';
    const created = await background(input);
    expect(created.status).to.equal(200);
    expect(created.body).to.deep.include({ status: 'queued', background: true, model: RESPONSES_MODEL });
    const hold = responsesMicros(
      {
        input_tokens: estimateResponsesInput({ input }),
        output_tokens: 32_000,
        input_tokens_details: { cache_write_tokens: estimateResponsesInput({ input }) },
      },
      'priority',
    );
    expect((await wallet()).reserved).to.equal(formatMicros(hold));
    const queued = await taskOf(created.body.id);
    expect(queued).to.include({ kind: 'response', status: 'queued', provider_id: 'sandbox-openai-responses', model_id: RESPONSES_MODEL });
    expect(queued.request).to.deep.equal({ input_tokens: estimateResponsesInput({ input }), max_output_tokens: 32_000 }); // numbers, no content
    const done = await pollUntilDone(created.body.id);
    const usage = primary.responses.get(created.body.id)!.final.usage as any;
    expect(done).to.include({ status: 'completed', upstream_status: 'completed', billed_amount: BigInt(responsesMicros(usage)) });
    expect(await wallet()).to.include({ debits: responsesCost(usage), reserved: '0.000000' });
    await poll(); // a later tick changes nothing
    expect((await settlesAndReleases()).map((e) => e.kind)).to.deep.equal(['settle']);
    const got = (await (await call('GET', `/v1/responses/${created.body.id}`)).json()) as any;
    expect(got).to.deep.include({ status: 'completed', model: RESPONSES_MODEL });
    await gateway.services.responses.flush();
    const [row] = await gateway.db('response_ids').where({ response_id: created.body.id });
    expect(row.context_tokens).to.equal(BigInt(usage.total_tokens)); // what a request chained to it holds for
  });

  it('cancel maps to the provider cancel and releases the hold once it confirms', async () => {
    const created = await background('Never mind [[sim queued_ms=60000]]');
    const cancelled = await call('POST', `/v1/responses/${created.body.id}/cancel`);
    expect(cancelled.status).to.equal(200);
    expect(((await cancelled.json()) as any).status).to.equal('cancelled');
    expect(primary.exchanges.at(-1)!.path).to.equal(`/responses/${created.body.id}/cancel`);
    expect(await taskOf(created.body.id)).to.include({ status: 'cancelled' });
    expect(await wallet()).to.include({ debits: '0.000000', reserved: '0.000000' });
    await poll();
    expect((await settlesAndReleases()).map((e) => e.kind)).to.deep.equal(['release']);
    const again = await call('POST', `/v1/responses/${created.body.id}/cancel`);
    expect(again.status).to.equal(200); // the provider answers a cancelled response again as it is
  });

  it('settles a failed response from its usage, releases one without usage', async () => {
    const failed = await background('Fail after work [[sim failed queued_ms=0 running_ms=0]]');
    const silent = await background('Fail quietly [[sim failed no_usage queued_ms=0 running_ms=0]]');
    const withUsage = await pollUntilDone(failed.body.id);
    const withoutUsage = await pollUntilDone(silent.body.id);
    const usage = primary.responses.get(failed.body.id)!.final.usage as any;
    expect(withUsage).to.include({ status: 'completed', upstream_status: 'failed' });
    expect(withoutUsage).to.include({ status: 'failed', upstream_status: 'failed' });
    expect(await wallet()).to.include({ debits: responsesCost(usage), reserved: '0.000000' });
  });

  it('sends a response whose usage cannot be confirmed to review, held until an operator settles it', async () => {
    const unreported = await background('No usage [[sim no_usage queued_ms=0 running_ms=0]]');
    const gone = await background('Deleted while running [[sim queued_ms=60000]]');
    expect((await call('DELETE', `/v1/responses/${gone.body.id}`)).status).to.equal(200);
    const [a, b] = [await pollUntilDone(unreported.body.id), await pollUntilDone(gone.body.id)];
    expect(a.status).to.equal('review');
    expect(a.error).to.deep.include({ code: 'no_usage' });
    expect(b.status).to.equal('review');
    expect(b.error).to.deep.include({ code: 'response_gone' });
    const held = (await wallet()).reserved;
    expect(Number(held)).to.be.greaterThan(0);
    const resolved = await gateway.admin('POST', `/admin/v1/video-tasks/${a.id}/resolve`, {
      action: 'settle',
      amount: '0.001000',
      actor: 'ops',
      reason: 'provider invoice',
    });
    expect(resolved.status).to.equal(200);
    await gateway.admin('POST', `/admin/v1/video-tasks/${b.id}/resolve`, { action: 'release', actor: 'ops', reason: 'deleted by the customer' });
    expect(await wallet()).to.include({ debits: '0.001000', reserved: '0.000000' });
  });

  it('refuses background with stream, a short balance (insufficient_quota), and keeps tasks out of the video endpoints', async () => {
    const streamed = await call('POST', '/v1/responses', { model: RESPONSES_MODEL, input: 'x', background: true, stream: true });
    expect(streamed.status).to.equal(400);
    expect(((await streamed.json()) as any).error.param).to.equal('stream');
    const poor = await gateway.customerWithKey();
    const refused = await call('POST', '/v1/responses', { model: RESPONSES_MODEL, input: 'x', background: true }, poor.key);
    expect(refused.status).to.equal(402);
    expect(((await refused.json()) as any).error.code).to.equal('insufficient_quota');
    const created = await background('A task [[sim queued_ms=60000]]');
    const task = await taskOf(created.body.id);
    expect((await call('GET', `/v1/videos/${task.id}`)).status).to.equal(404);
    expect(((await (await call('GET', '/v1/videos')).json()) as any).data).to.deep.equal([]);
    expect(primary.exchanges.filter((e) => e.method === 'POST')).to.have.length(1);
    await call('POST', `/v1/responses/${created.body.id}/cancel`);
  });
});
