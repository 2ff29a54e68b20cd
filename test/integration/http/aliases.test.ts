import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SAMPLE_CATALOGUE, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

// Catalogue aliases (issue 24): a model answers to other names (the ids Claude Code and Codex send
// by default), resolved before routing, billed and logged under its public id, shown in
// /v1/models only where the operator lists them; an alias never shadows a model id.
describe('model aliases', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  before(async () => {
    // A copy: the last test edits it.
    const catalogue = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'aliases-')), 'catalogue.yaml');
    fs.copyFileSync(SAMPLE_CATALOGUE, catalogue);
    gateway = await startTestGateway({ cataloguePath: catalogue });
  });
  after(async () => gateway.close());

  const message = (key: string, model: string) =>
    fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
    });

  it("serves Claude Code's default model id from the sample catalogue, billed and logged under the public id", async () => {
    const { customerId, key } = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: `fund-${customerId}` });
    const answer = await message(key, 'claude-opus-5-5');
    expect(answer.status).to.equal(200);
    const body = (await answer.json()) as any;
    expect(body.model).to.equal('sandbox/claude-opus'); // answers name the public id, as for any model
    const row = await gateway.requestLog(answer.headers.get('request-id')!);
    expect(row).to.include({ model: 'sandbox/claude-opus', status: 200 });
    expect(Number(row.cost)).to.be.greaterThan(0);

    // Not listed unless the operator asks; retrieved under the name asked for.
    const listed = (await (await fetch(`${gateway.url}/v1/models`)).json()) as any;
    expect(listed.data.map((m: any) => m.id))
      .to.include('sandbox/claude-opus')
      .and.not.include('claude-opus-5-5');
    const retrieved = (await (await fetch(`${gateway.url}/v1/models/claude-opus-5-5`)).json()) as any;
    expect(retrieved).to.include({ id: 'claude-opus-5-5', object: 'model', owned_by: 'gateway' });
  });

  it("follows a key's allow-list through the alias", async () => {
    const limited = await gateway.customerWithKey({ allowedModels: ['sandbox/claude-haiku'] });
    await gateway.admin('POST', `/admin/v1/customers/${limited.customerId}/credits`, { amount: '5.00', reference: `fund-${limited.customerId}` });
    expect((await message(limited.key, 'claude-opus-5-5')).status).to.equal(404);
    expect((await message(limited.key, 'claude-haiku-4-5')).status).to.equal(200);
  });

  it('lists an alias in /v1/models where the operator asks, and refuses a catalogue whose alias shadows a model id, naming the line', async () => {
    const sandboxSonnet = '  - id: sandbox/claude-sonnet\n    aliases: [claude-sonnet-5]\n';
    const listed = await gateway.rewriteCatalogue((text) =>
      text.replace(sandboxSonnet, '  - id: sandbox/claude-sonnet\n    aliases: [{name: claude-sonnet-5, listed: true}]\n'),
    );
    expect(listed.status).to.equal(200);
    const ids = ((await (await fetch(`${gateway.url}/v1/models`)).json()) as any).data.map((m: any) => m.id);
    expect(ids).to.include.members(['claude-sonnet-5', 'sandbox/claude-sonnet']);

    let line = 0;
    const shadowing = await gateway.rewriteCatalogue((text) => {
      const edited = text.replace('aliases: [{name: claude-sonnet-5, listed: true}]\n', 'aliases: [claude-sonnet-5, sandbox/claude-haiku]\n');
      expect(edited).to.not.equal(text);
      line = edited.split('\n').findIndex((l) => l.includes('sandbox/claude-haiku]')) + 1;
      return edited;
    });
    expect(shadowing.status).to.equal(422);
    const errors = String(shadowing.body.error.message);
    expect(errors).to.include(`line ${line}:`);
    expect(errors, errors).to.match(/"sandbox\/claude-haiku" is the id of models\.\d+; an alias may not shadow a model/);
  });
});
