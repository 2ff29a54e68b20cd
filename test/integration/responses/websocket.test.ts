// The Responses WebSocket (GET /v1/responses upgraded) with a plain WebSocket client: each
// response.create a turn bridged onto the provider's HTTP+SSE endpoint, held and settled like an
// HTTP response; the key checked before the upgrade; ownership, limits, warm-ups, store: false
// continuation, a cut connection, oversized messages and shutdown.
import net from 'node:net';
import { expect } from 'chai';
import { estimateTokens } from '../../../src/domain/passthrough/estimate.ts';
import { estimateResponsesInput } from '../../../src/domain/responses/fields.ts';
import type { OpenAIResponsesSimulator } from '../../../src/sandbox/openai-responses/server.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { limitedKey } from '../../helpers/limits.ts';
import { RESPONSES_MODEL, responsesCost, responsesExchangeProblems } from '../../helpers/responses.ts';
import { validateWebSocketMessage } from '../../helpers/upstream-contract.ts';
import { openSocket, waitFor, type TestSocket } from '../../helpers/websocket.ts';

const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const create = (extra: Record<string, unknown>) => ({ type: 'response.create', model: RESPONSES_MODEL, store: false, ...extra });

describe('responses over WebSocket', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let primary: OpenAIResponsesSimulator;
  let backup: OpenAIResponsesSimulator;
  let key: string;
  let customerId: string;
  const sockets: TestSocket[] = [];

  beforeEach(async () => {
    gateway = await startTestGateway({ env: { GRANTS: 'false', BODY_LIMIT_BYTES: '200000' } });
    primary = gateway.simulators.get('sandbox-openai-responses') as OpenAIResponsesSimulator;
    backup = gateway.simulators.get('sandbox-openai-responses-backup') as OpenAIResponsesSimulator;
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: 'fund' });
  });
  afterEach(async () => {
    // Every message the gateway sent is one OpenAI's WebSocket mode documents (the sandbox's made-up event aside).
    const sent = sockets.flatMap((s) => s.events).filter((e) => e.type !== 'response.sandbox_note.added');
    expect(sent.flatMap((e) => validateWebSocketMessage('server', e).map((p) => `${e.type}: ${p}`))).to.deep.equal([]);
    for (const socket of sockets.splice(0)) socket.ws.terminate();
    expect(responsesExchangeProblems(primary, backup)).to.deep.equal([]);
    await gateway.close({ graceMs: 100 });
  });

  const open = async (as = key) => {
    const socket = await openSocket(gateway.url, as);
    sockets.push(socket);
    return socket;
  };
  const billed = (from = 0) =>
    primary.exchanges
      .slice(from)
      .filter((e) => e.billed)
      .map((e) => e.billed!);
  const debits = async () => (await gateway.wallet(customerId)).debits as string;
  const journal = async (ref: string) => gateway.db('ledger_entries').where({ reservation_ref: ref }).orderBy('id');

  it('relays each turn as one message per event, billed exactly as the provider counted it, logged as responses_create', async () => {
    const socket = await open();
    expect(socket.headers['request-id']).to.match(/^req_/);
    const events = await socket.turn(create({ input: [user('Hello')] }));
    expect(events.map((e) => e.type)).to.include.members(['response.created', 'response.output_text.delta', 'response.completed']);
    expect(events.map((e) => e.sequence_number)).to.deep.equal(events.map((_, i) => i));
    const completed = events.at(-1)!;
    expect(completed.response.model).to.equal(RESPONSES_MODEL);
    const sent = primary.exchanges.at(-1)!;
    expect(sent.body).to.deep.equal({ model: 'sandbox-responses', store: false, input: [user('Hello')], stream: true });
    expect(sent.headers.authorization).to.equal('Bearer sandbox');
    expect(await debits()).to.equal(responsesCost(...billed()));
    const second = await socket.turn(create({ input: [user('Again')], stream_id: 'lane_1' }));
    expect(second.every((e) => e.stream_id === 'lane_1')).to.equal(true);
    expect(await debits()).to.equal(responsesCost(...billed()));
    const [log] = await gateway.requestLogs(`customer_id=${customerId}&endpoint=responses_create`, 2);
    expect(log).to.include({ model: RESPONSES_MODEL, status: 200, stream: true, usage_estimated: false, cost: responsesCost(billed()[1]!) });
  });

  it('answers a generate: false warm-up itself, free, and continues the next turn from it (store: false)', async () => {
    const socket = await open();
    const warm = await socket.turn(create({ generate: false, instructions: 'Be brief.', input: [user('Context')], tools: [] }));
    expect(warm.map((e) => e.type)).to.deep.equal(['response.created', 'response.completed']);
    expect(warm[1]!.response).to.include({ status: 'completed', model: RESPONSES_MODEL });
    expect(primary.exchanges).to.have.length(0);
    const events = await socket.turn(create({ previous_response_id: warm[1]!.response.id, input: [user('Question')] }));
    expect(events.at(-1)!.type).to.equal('response.completed');
    expect(primary.exchanges).to.have.length(1);
    const sent = primary.exchanges[0]!.body!;
    expect(sent.input).to.deep.equal([user('Context'), user('Question')]);
    expect(sent).to.not.have.property('previous_response_id');
    expect(await debits()).to.equal(responsesCost(...billed()));
    const logs = await gateway.requestLogs(`customer_id=${customerId}&endpoint=responses_create`, 2);
    expect(logs.map((l: any) => l.cost)).to.deep.equal([responsesCost(...billed()), '0.000000']);
  });

  it("continues a store: false turn on the same connection with its input and output; an older one is the provider's to refuse", async () => {
    const socket = await open();
    primary.next({ call: { name: 'exec_command', arguments: '{"cmd":"echo hi"}' } });
    const first = await socket.turn(create({ input: [user('Run echo hi')] }));
    const call = first.at(-1)!.response.output.find((i: any) => i.type === 'function_call');
    expect(call).to.include({ name: 'exec_command' });
    const output = { type: 'function_call_output', call_id: call.call_id, output: 'hi' };
    const second = await socket.turn(create({ previous_response_id: first.at(-1)!.response.id, input: [output] }));
    expect(second.at(-1)!.type).to.equal('response.completed');
    const sent = primary.exchanges[1]!.body!;
    expect(sent.input).to.deep.equal([user('Run echo hi'), ...first.at(-1)!.response.output, output]);
    expect(sent).to.not.have.property('previous_response_id');
    const stale = await socket.turn(create({ previous_response_id: first.at(-1)!.response.id, input: [user('again')] }));
    expect(stale.at(-1)).to.deep.include({ type: 'error', status: 400 }); // as the provider answered
    expect(stale.at(-1)!.error.message).to.include('not found');
    expect(await debits()).to.equal(responsesCost(...billed()));
  });

  it("refuses another customer's previous_response_id in the turn, sends nothing upstream, and the connection goes on", async () => {
    const other = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${other.customerId}/credits`, { amount: '1.00', reference: 'other' });
    const theirs = (await (await open(other.key)).turn(create({ store: true, input: [user('Mine')] }))).at(-1)!.response.id as string;
    await gateway.services.responses.flush();
    const before = primary.exchanges.length;
    const socket = await open();
    const [refused] = await socket.turn(create({ store: true, previous_response_id: theirs, input: [user('Steal')] }));
    expect(refused).to.deep.equal({
      type: 'error',
      status: 404,
      error: {
        message: `Previous response with id '${theirs}' not found.`,
        type: 'invalid_request_error',
        code: 'previous_response_not_found',
        param: 'previous_response_id',
      },
    });
    expect(primary.exchanges.length).to.equal(before);
    expect((await socket.turn(create({ input: [user('Fine')] }))).at(-1)!.type).to.equal('response.completed');
    expect(await debits()).to.equal(responsesCost(...billed(before)));
  });

  it('counts each turn against the key: at its concurrency limit a turn is refused 429 and costs nothing', async () => {
    const limited = await limitedKey(gateway, { max_concurrent: 1 });
    const slow = await openSocket(gateway.url, limited.key);
    sockets.push(slow);
    slow.send(create({ input: [user('Slow [[sim deltas=4 gap_ms=400]]')] }));
    await waitFor(() => slow.events.some((e) => e.type === 'response.output_text.delta'), 'the slow turn is streaming');
    const socket = await openSocket(gateway.url, limited.key);
    sockets.push(socket);
    const [refused] = await socket.turn(create({ input: [user('Now')] }));
    expect(refused).to.deep.include({ type: 'error', status: 429 });
    expect(refused!.error).to.include({ code: 'rate_limit_exceeded', type: 'rate_limit_error' });
    expect(Number(refused!.error.headers['retry-after'])).to.be.greaterThan(0);
    expect((await slow.turn()).at(-1)!.type).to.equal('response.completed');
    expect((await socket.turn(create({ input: [user('Later')] }))).at(-1)!.type).to.equal('response.completed');
    expect((await gateway.wallet(limited.customerId)).debits).to.equal(responsesCost(...billed()));
  });

  it('settles a turn whose client cut the connection for exactly what was delivered, once', async () => {
    const socket = await open();
    const input = [user('Long answer [[sim deltas=8 gap_ms=1000]]')];
    socket.send(create({ input }));
    await waitFor(() => socket.events.filter((e) => e.type === 'response.output_text.delta').length === 2, 'two deltas');
    socket.ws.terminate();
    const delivered = socket.events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta as string);
    await waitFor(
      async () => (await journal((await gateway.requestLogs(`customer_id=${customerId}`, 1))[0].request_id)).some((e) => e.kind === 'settle'),
      'settled',
    );
    const estimate = { input_tokens: estimateResponsesInput({ input }), output_tokens: estimateTokens(delivered.join('')) };
    expect(await debits()).to.equal(responsesCost(estimate));
    const [log] = await gateway.requestLogs(`customer_id=${customerId}&endpoint=responses_create`, 1);
    expect(log).to.include({ interrupted: true, usage_estimated: true, output_tokens: estimate.output_tokens });
    const entries = await journal(log.request_id);
    expect(entries.map((e) => e.kind)).to.deep.equal(['reserve', 'settle']);
    expect(entries[1].purpose).to.include({ ending: 'client_gone', estimated: true });
  });

  it('ends a turn in flight exactly once when the gateway stops, settled for what was delivered, and closes with 1001', async () => {
    const socket = await open();
    socket.send(create({ input: [user('Long answer [[sim deltas=8 gap_ms=1000]]')] }));
    await waitFor(() => socket.events.some((e) => e.type === 'response.output_text.delta'), 'streaming');
    await gateway.close({ graceMs: 200 });
    const events = await socket.turn();
    expect(events.at(-1)).to.deep.include({ type: 'response.failed' });
    expect(events.at(-1)!.response.error.message).to.include('restarting');
    expect((await socket.closed).code).to.equal(1001);
    const [log] = await gateway.db('request_logs').where({ customer_id: customerId, endpoint: 'responses_create' });
    const entries = await journal(log.request_id);
    expect(entries.map((e) => e.kind)).to.deep.equal(['reserve', 'settle']);
    expect(entries[1].purpose).to.include({ ending: 'shutdown' });
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });

  it('checks the key before the upgrade: a bad key gets 401 in the OpenAI shape and no 101; plain GET is 426', async () => {
    const refused = await openSocket(gateway.url, 'sk-gw-nope').catch((error: any) => error);
    expect(refused.status).to.equal(401);
    expect(JSON.parse(refused.body).error).to.include({ code: 'invalid_api_key', type: 'authentication_error' });
    expect(refused.headers['request-id']).to.match(/^req_/);
    const plain = await fetch(`${gateway.url}/v1/responses`, { headers: { authorization: `Bearer ${key}` } });
    expect(plain.status).to.equal(426);
    expect(plain.headers.get('upgrade')).to.equal('websocket');
    expect(((await plain.json()) as any).error.code).to.equal('websocket_required');
    const { port, hostname } = new URL(gateway.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const s = net.connect(Number(port), hostname, () =>
        s.write(
          `GET /v1/responses HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 8\r\n\r\n`,
        ),
      );
      let text = '';
      s.on('data', (c) => (text += c.toString()));
      s.on('close', () => resolve(text));
      s.on('error', reject);
    });
    expect(raw).to.match(/^HTTP\/1\.1 400 /);
    expect(raw).to.include('"code":"websocket_handshake_invalid"');
    expect(primary.exchanges).to.have.length(0);
  });

  it('closes the connection with 1009 on a message over BODY_LIMIT_BYTES, charging nothing; refuses bad messages in the turn', async () => {
    const socket = await open();
    const [notJson] = await (socket.ws.send('{nope'), socket.turn());
    expect(notJson).to.deep.include({ type: 'error', status: 400 });
    const [background] = await socket.turn(create({ background: true, input: 'x' }));
    expect(background!.error).to.include({ param: 'background', code: 'invalid_request' });
    const [unknown] = await socket.turn({ type: 'response.cancel' });
    expect(unknown!.error).to.include({ param: 'type' });
    socket.send(create({ input: 'x'.repeat(300_000) }));
    expect((await socket.closed).code).to.equal(1009);
    expect(primary.exchanges).to.have.length(0);
    expect(await debits()).to.equal('0.000000');
    const next = await open();
    expect((await next.turn(create({ input: 'hi' }))).at(-1)!.type).to.equal('response.completed');
  });
});
