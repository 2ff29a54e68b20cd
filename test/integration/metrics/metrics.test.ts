// GET /metrics as Prometheus and an operator see it: the names exist, counters move with traffic,
// gauges read from the database reflect what is held right now.
import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { openStream } from '../../helpers/child-gateway.ts';

const NAMES = [
  'gateway_build_info',
  'gateway_http_requests_total',
  'gateway_http_request_duration_seconds',
  'gateway_stream_first_byte_seconds',
  'gateway_upstream_requests_total',
  'gateway_upstream_response_seconds',
  'gateway_upstream_failovers_total',
  'gateway_reservations_pending',
  'gateway_reservations_pending_amount',
  'gateway_reservations_swept_total',
  'gateway_video_tasks',
  'gateway_video_poller_lag_seconds',
  'gateway_video_queue_depth',
  'gateway_video_queue_oldest_wait_seconds',
  'gateway_video_queue_wait_seconds',
  'gateway_video_queue_requeues_total',
  'gateway_db_pool_connections',
  'gateway_db_pool_max',
  'gateway_key_change_notifications_total',
  'gateway_key_change_listener_up',
  'gateway_key_change_listener_starts_total',
  'gateway_http_open_connections',
  'gateway_http_connections_refused_total',
  'gateway_http_header_timeouts_total',
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'nodejs_eventloop_lag_seconds',
];

/** The value of one sample (`name{labels}`), 0 when absent (a counter never incremented). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(/,(?=[a-z_]+=")/).filter(Boolean);
    if (wanted.every((w) => present.includes(w))) return Number(match[3]);
  }
  return 0;
}

describe('metrics: GET /metrics (admin token) and METRICS_PORT (no authentication)', function () {
  this.timeout(30_000);
  let gateway: TestGateway;
  let key: string;
  let customerId: string;
  let keyId: string;

  before(async () => {
    // Per-request holds: the pending gauges then count requests (with grants they count the grant).
    gateway = await startTestGateway({ env: { METRICS_PORT: '0', STALE_RESERVATION_SECONDS: '5', HEARTBEAT_MS: '200', GRANTS: 'false' } });
    ({ key, customerId, keyId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '10.00', reference: 'fund' });
  });
  after(async () => gateway?.close());

  const scrape = async () => {
    const response = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.adminToken}` } });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    return response.text();
  };
  const message = (model: string, prompt: string, stream = false) =>
    fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 64, stream, messages: [{ role: 'user', content: prompt }] }),
    });

  it('needs the admin token on the main port, and exposes every documented metric', async () => {
    const anonymous = await fetch(`${gateway.url}/metrics`);
    expect(anonymous.status).to.equal(401);
    expect(anonymous.headers.get('request-id')).to.match(/^req_/);
    expect(((await anonymous.json()) as any).error.type).to.equal('authentication_error');
    expect((await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${key}` } })).status).to.equal(401);
    const text = await scrape();
    for (const name of NAMES) expect(text, name).to.include(`# TYPE ${name} `);
  });

  it('serves the same text without authentication on METRICS_PORT, and nothing else there', async () => {
    expect(gateway.metricsUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const response = await fetch(gateway.metricsUrl!);
    expect(response.status).to.equal(200);
    expect(await response.text()).to.include('# TYPE gateway_http_requests_total counter');
    expect((await fetch(gateway.metricsUrl!.replace('/metrics', '/v1/models'))).status).to.equal(404);
  });

  it('counts a request by operation, model and status, its upstream call, and the first byte of a stream', async () => {
    const labels = { operation: 'messages_create', model: 'sandbox/claude-haiku', status: '200' };
    const before = await scrape();
    expect((await message('sandbox/claude-haiku', 'Hello')).status).to.equal(200);
    const streamed = await message('sandbox/claude-haiku', 'Hello again', true);
    await streamed.text();
    await gateway.settled();
    const after = await scrape();
    expect(sample(after, 'gateway_http_requests_total', labels) - sample(before, 'gateway_http_requests_total', labels)).to.equal(2);
    expect(
      sample(after, 'gateway_http_request_duration_seconds_count', labels) - sample(before, 'gateway_http_request_duration_seconds_count', labels),
    ).to.equal(2);
    const ok = { provider: 'sandbox-anthropic', outcome: 'ok', status: '200' };
    expect(sample(after, 'gateway_upstream_requests_total', ok) - sample(before, 'gateway_upstream_requests_total', ok)).to.equal(2);
    const first = { operation: 'messages_create', model: 'sandbox/claude-haiku' };
    expect(sample(after, 'gateway_stream_first_byte_seconds_count', first) - sample(before, 'gateway_stream_first_byte_seconds_count', first)).to.equal(1);

    // A model id the catalogue does not know is folded into one label value (bounded series).
    expect((await message('nobody/made-this-up-123', 'Hi')).status).to.equal(404);
    const text = await scrape();
    expect(text).to.not.include('made-this-up-123');
    expect(sample(text, 'gateway_http_requests_total', { operation: 'messages_create', model: 'unknown', status: '404' })).to.be.at.least(1);
  });

  it('counts upstream errors and failovers by provider', async () => {
    const before = await scrape();
    expect((await message('sandbox/claude-sonnet', 'Busy? [[sim error=529]]')).status).to.equal(529);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('gateway_upstream_requests_total', { provider: 'sandbox-anthropic', outcome: 'status', status: '529' })).to.equal(1);
    expect(delta('gateway_upstream_requests_total', { provider: 'sandbox-anthropic-backup', outcome: 'status', status: '529' })).to.equal(1);
    expect(delta('gateway_upstream_failovers_total', { provider: 'sandbox-anthropic' })).to.equal(1);
  });

  it('counts every upstream call, not only the relay: counts of tokens, a background submission and its poll, a stored response', async () => {
    const before = await scrape();
    const post = (path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${key}` }) =>
      fetch(`${gateway.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const messages = [{ role: 'user', content: 'How many tokens is this?' }];
    expect((await post('/v1/messages/count_tokens', { model: 'sandbox/claude-haiku', messages }, { 'x-api-key': key })).status).to.equal(200);
    expect((await post('/v1/responses/input_tokens', { model: 'sandbox/responses-model', input: 'Count me' })).status).to.equal(200);
    const gemini = await post('/v1beta/models/sandbox%2Fgemini-flash:countTokens', { contents: [{ role: 'user', parts: [{ text: 'Count me' }] }] });
    expect(gemini.status).to.equal(200);
    const queued = await post('/v1/responses', { model: 'sandbox/responses-model', input: 'Later, please', background: true });
    expect(queued.status).to.equal(200);
    const { id } = (await queued.json()) as { id: string };
    expect((await fetch(`${gateway.url}/v1/responses/${id}`, { headers: { authorization: `Bearer ${key}` } })).status).to.equal(200);
    await gateway
      .db('video_tasks')
      .where({ upstream_task_id: id })
      .update({ next_poll_at: new Date(0) });
    await gateway.services.videoWorker.processBatch(); // the task engine's poll of the background response
    const after = await scrape();
    const calls = (provider: string) =>
      sample(after, 'gateway_upstream_requests_total', { provider, outcome: 'ok', status: '200' }) -
      sample(before, 'gateway_upstream_requests_total', { provider, outcome: 'ok', status: '200' });
    expect(calls('sandbox-anthropic')).to.equal(1);
    expect(calls('sandbox-gemini')).to.equal(1);
    expect(calls('sandbox-openai-responses')).to.equal(4); // the count, the submission, the stored read, the poll
  });

  it('shows a request held right now in the pending gauges, and none once it settled', async () => {
    // The 529 of the test before is released a moment after its client saw the answer.
    await gateway.settled();
    const idle = await scrape();
    expect(sample(idle, 'gateway_reservations_pending', { kind: 'request' })).to.equal(0);
    const stream = await openStream(gateway.url, key, 'sandbox/claude-haiku', 'Tell me slowly [[sim gap_ms=100 deltas=20]]');
    const held = await scrape();
    expect(sample(held, 'gateway_reservations_pending', { kind: 'request' })).to.equal(1);
    expect(sample(held, 'gateway_reservations_pending_amount', { kind: 'request', currency: 'USD' })).to.be.greaterThan(0);
    await stream.text;
    await gateway.settled();
    const done = await scrape();
    expect(sample(done, 'gateway_reservations_pending', { kind: 'request' })).to.equal(0);
    expect(sample(done, 'gateway_reservations_pending_amount', { kind: 'request', currency: 'USD' })).to.equal(0);
  });

  it('counts the holds the sweeper ends', async () => {
    const ref = 'req_metrics_orphan';
    const purpose = { request_id: ref, model: 'sandbox/claude-haiku', endpoint: 'messages_create', key_id: keyId };
    await gateway.services.ledger.reserve({ ref, customerId, bound: { amount: 500_000n }, purpose, owner: 'gw_deadprocess', kind: 'request' });
    await gateway
      .db('reservations')
      .where({ ref })
      .update({ created_at: new Date(Date.now() - 10_000) });
    const before = await scrape();
    expect(sample(before, 'gateway_reservations_pending', { kind: 'request' })).to.equal(1);
    expect(await gateway.services.sweeper.sweep()).to.equal(1);
    const after = await scrape();
    expect(sample(after, 'gateway_reservations_swept_total') - sample(before, 'gateway_reservations_swept_total')).to.equal(1);
    expect(sample(after, 'gateway_reservations_pending', { kind: 'request' })).to.equal(0);
  });
});
