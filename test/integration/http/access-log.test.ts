// The access log as an operator reads it: one line per request carrying the id the client got,
// and never a key, a token or a prompt, whatever the path (success, stream, upstream error).
import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const PROMPT_MARKER = 'zebra-lantern-7731';

describe('access log: request ids, no secrets, no prompts', function () {
  this.timeout(30_000);
  let gateway: TestGateway;
  after(async () => gateway?.close());

  const accessLines = (g: TestGateway, requestId: string) => g.logs.filter((l) => l.msg === 'request' && l.request_id === requestId);
  const waitForLine = async (g: TestGateway, requestId: string) => {
    for (let i = 0; i < 100 && accessLines(g, requestId).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    return accessLines(g, requestId);
  };

  it('logs one line per request under the id the client received, with no key, token or prompt anywhere', async () => {
    gateway = await startTestGateway();
    const customer = await gateway.admin('POST', '/admin/v1/customers', { name: 'Log reader' });
    const created = await gateway.admin('POST', `/admin/v1/customers/${customer.body.id}/api-keys`, {});
    await gateway.admin('POST', `/admin/v1/customers/${customer.body.id}/credits`, { amount: '5.00', reference: 'fund' });
    const secret: string = created.body.key;
    const ask = (prompt: string, stream: boolean, auth: Record<string, string>) =>
      fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'sandbox/claude-haiku',
          max_tokens: 64,
          stream,
          system: `system ${PROMPT_MARKER}`,
          messages: [{ role: 'user', content: `${prompt} please` }],
        }),
      });
    const answers = [
      await ask(PROMPT_MARKER, false, { 'x-api-key': secret }),
      await ask(PROMPT_MARKER, true, { authorization: `Bearer ${secret}` }),
      await ask(`${PROMPT_MARKER} [[sim error=529]]`, false, { 'x-api-key': secret }),
      await ask(PROMPT_MARKER, false, { 'x-api-key': `${secret}x` }), // a wrong key: 401
    ];
    for (const answer of answers) await answer.text();
    await gateway.settled();
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 529, 401]);
    for (const answer of answers) {
      const id = answer.headers.get('request-id')!;
      expect(answer.headers.get('x-request-id')).to.equal(id);
      const lines = await waitForLine(gateway, id);
      expect(lines, id).to.have.length(1);
      expect(lines[0]).to.include({ operation: 'messages_create', status: answer.status, level: 30 });
      if (answer.status === 200) {
        // Time to the first byte the client got, from the request's arrival; the upstream's share of it.
        const line = lines[0] as { first_byte_ms: number; upstream_ms: number; duration_ms: number };
        expect(line.first_byte_ms).to.be.a('number').above(0).and.at.most(line.duration_ms);
        expect(line.upstream_ms)
          .to.be.a('number')
          .at.most(line.first_byte_ms + 1); // whole milliseconds
      }
    }
    const everything = gateway.rawLogs();
    expect(everything).to.include('"msg":"upstream attempt failed"'); // debug capture, error paths included
    for (const leak of [secret, secret.slice(6), PROMPT_MARKER, gateway.adminToken])
      expect(everything, 'a secret or a prompt in the logs').to.not.include(leak);
  });

  it('always mints its own id; with TRUST_REQUEST_ID on, a well-formed incoming x-request-id is echoed and logged beside it', async () => {
    const incoming = 'lb-5f1c2a9e-0001';
    const untrusted = await fetch(`${gateway.url}/v1/models`, { headers: { 'x-request-id': incoming } });
    const minted = untrusted.headers.get('request-id')!;
    expect(minted).to.match(/^req_/).and.not.equal(incoming);
    expect((await waitForLine(gateway, minted))[0]).to.include({ operation: 'models_list', status: 200 });
    expect(gateway.logs.some((l) => l.request_id === incoming)).to.equal(false);
    await gateway.close();

    gateway = await startTestGateway({ env: { TRUST_REQUEST_ID: 'true' } });
    const trusted = await fetch(`${gateway.url}/v1/models`, { headers: { 'x-request-id': incoming } });
    // The gateway's own id stays the request's (it keys money); the proxy's is echoed and logged beside it.
    const own = trusted.headers.get('request-id')!;
    expect(own).to.match(/^req_/);
    expect(trusted.headers.get('x-request-id')).to.equal(incoming);
    expect((await waitForLine(gateway, own))[0]).to.include({ operation: 'models_list', status: 200, client_request_id: incoming });
    // Not an id (spaces, too long): replaced, never copied into the log.
    const junk = await fetch(`${gateway.url}/v1/models`, { headers: { 'x-request-id': 'a b' } });
    expect(junk.headers.get('request-id')).to.match(/^req_/);
  });

  it('logs at LOG_LEVEL: probes and scrapes at debug only, requests at info', async () => {
    const probe = await fetch(`${gateway.url}/healthz`);
    const lines = await waitForLine(gateway, probe.headers.get('request-id')!);
    expect(lines[0]).to.include({ operation: 'health_get', level: 20 });
  });

  it('tells an operator who, from where, what route, usage and cost; names the owner of a refused key; and why a provider could not be reached', async () => {
    await gateway?.close();
    gateway = await startTestGateway({ env: { TRUST_PROXY: 'loopback' } });
    const { customerId, keyId, key } = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: `fund-${customerId}` });
    const answer = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'user-agent': 'ops-check/1.0', 'x-forwarded-for': '203.0.113.7' },
      body: JSON.stringify({ model: 'sandbox/claude-haiku', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(answer.status).to.equal(200);
    const [line] = await waitForLine(gateway, answer.headers.get('request-id')!);
    const logged = (await gateway.requestLog(answer.headers.get('request-id')!)) as { cost: string; input_tokens: number; output_tokens: number };
    expect(line).to.include({
      method: 'POST',
      path: '/v1/messages',
      client_ip: '203.0.113.7', // the trusted proxy on loopback named the client
      user_agent: 'ops-check/1.0',
      customer_id: customerId,
      key_id: keyId,
      model: 'sandbox/claude-haiku',
      provider: 'sandbox-anthropic',
      input_tokens: logged.input_tokens,
      output_tokens: logged.output_tokens,
      cost: logged.cost,
    });

    // An unmatched route keeps its method and path.
    const nowhere = await fetch(`${gateway.url}/v1/nowhere?x=1`);
    expect((await waitForLine(gateway, nowhere.headers.get('request-id')!))[0]).to.include({
      method: 'GET',
      path: '/v1/nowhere',
      operation: 'unmatched',
      status: 404,
    });

    // A suspended customer's refusal names the customer and the key.
    await gateway.admin('PATCH', `/admin/v1/customers/${customerId}`, { status: 'suspended' });
    const refused = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(refused.status).to.equal(403);
    expect((await waitForLine(gateway, refused.headers.get('request-id')!))[0]).to.include({ status: 403, customer_id: customerId, key_id: keyId });
    await gateway.admin('PATCH', `/admin/v1/customers/${customerId}`, { status: 'active' });

    // Both routes of the model gone: the operating system's word for it.
    for (const id of ['sandbox-anthropic', 'sandbox-anthropic-backup']) await gateway.simulators.get(id)!.close();
    const down = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/claude-sonnet', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(down.status).to.be.within(500, 599);
    expect((await waitForLine(gateway, down.headers.get('request-id')!))[0]).to.include({ upstream_error: 'ECONNREFUSED' });
    const attempts = gateway.logs.filter((l) => l.msg === 'upstream attempt failed' && l.os_error === 'ECONNREFUSED');
    expect(attempts.length).to.be.greaterThan(0);
  });
});
