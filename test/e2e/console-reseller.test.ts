// The console for what a new operator reselling model access needs (issue 37), in Debian's
// Chromium driven by playwright-core against a test gateway with the sandbox providers: redeem
// codes minted and downloaded once by an operator and redeemed by a customer on a phone; the
// Catalogue screen showing every provider and model and why some cannot be reached; key forms
// that restrict a key to models; a customer's request log without the console's own reads by
// default, and a free request's receipt saying so; and the spend chart on a phone opening on today.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { ROOT_DIR } from '../../src/config.ts';
import { usingPostgres } from '../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { redeem } from '../helpers/redeem.ts';
import { DESKTOP, PHONE, fitsTheScreen, openConsole, shoot, signInAsCustomer, signInAsOperator, type ConsolePage } from './console/browser.ts';

describe(`console: redeem codes, the catalogue, key models, billable requests, the phone chart (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(180_000);
  let browser: Browser;
  let gateway: TestGateway;
  let operator: ConsolePage;
  let customer: ConsolePage;
  let customerId: string;
  let key: string;
  const saved = process.env.ANTHROPIC_API_KEY;

  before(async () => {
    delete process.env.ANTHROPIC_API_KEY; // the real Anthropic provider stays off: its models are unreachable
    execFileSync(process.execPath, [path.join(ROOT_DIR, 'scripts/build-console.js'), '--quiet'], { stdio: 'inherit' });
    const executablePath = execFileSync('bash', [path.join(ROOT_DIR, 'scripts/chromium-up.sh')], { encoding: 'utf8' }).trim();
    gateway = await startTestGateway({ env: { REDEEM_ATTEMPTS_PER_KEY: '100', REDEEM_ATTEMPTS_PER_ADDRESS: '100' } });
    browser = await chromium.launch({ executablePath });
    ({ customerId, key } = await gateway.customerWithKey());
    operator = await openConsole(browser, gateway.url, DESKTOP);
    await signInAsOperator(operator.page, gateway.adminToken);
    await operator.page.getByRole('heading', { name: 'Customers' }).waitFor();
  });
  afterEach(function () {
    for (const open of [operator, customer]) if (open) expect(open.problems, this.currentTest?.title).to.deep.equal([]);
  });
  after(async () => {
    if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    await operator?.close();
    await customer?.close();
    await browser?.close();
    await gateway?.close();
  });

  it('an operator mints codes, downloads them once as CSV, and sees who redeemed which; the customer redeems one on a phone', async () => {
    const { page } = operator;
    await page.getByRole('link', { name: 'Redeem codes' }).click();
    const form = page.getByRole('form', { name: 'Mint a batch' });
    await form.getByLabel('Amount per code').fill('5');
    await form.getByLabel('Number of codes').fill('3');
    await form.getByLabel('Redeemable until').fill('2099-12-31T23:59');
    await form.getByLabel('Note').fill('launch <b>week</b>');
    await form.getByRole('button', { name: 'Mint codes' }).click();
    const minted = page.getByRole('status', { name: 'New codes' });
    await minted.waitFor();
    const shown = await minted.locator('td[data-label="Code"]').allTextContents();
    expect(shown).to.have.length(3);
    const [download] = await Promise.all([page.waitForEvent('download'), minted.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = fs.readFileSync((await download.path())!, 'utf8').split('\r\n');
    expect(csv[0]).to.equal('code,code_id,amount,currency,expires_at,batch_id,note');
    expect(csv.slice(1, 4).map((line) => line.split(',')[0])).to.deep.equal(shown);
    const batchId = csv[1]!.split(',')[5]!;
    expect(download.suggestedFilename()).to.equal(`redeem-codes-${batchId}.csv`);
    const listed = (await gateway.admin('GET', `/admin/v1/redeem-codes?batch_id=${batchId}`)).body.data.map((c: any) => c.id);
    expect(csv.slice(1, 4).map((line) => line.split(',')[1])).to.deep.equal(listed);
    await shoot(page, 'operator-redeem-codes');
    await minted.getByRole('button', { name: 'I have stored them' }).click();
    expect(await page.content()).to.not.contain(shown[0]);
    expect(await page.locator('main b').count()).to.equal(0);

    customer = await openConsole(browser, gateway.url, PHONE);
    await signInAsCustomer(customer.page, key);
    const redeemForm = customer.page.getByRole('form', { name: 'Redeem a code' });
    await redeemForm.getByLabel('Code').fill(shown[0]!.toLowerCase());
    await redeemForm.getByRole('button', { name: 'Redeem' }).click();
    await customer.page.getByRole('status').getByText(`Credited 5.000000 USD (code ${listed[0]})`).waitFor();
    await customer.page.locator('dt:text-is("Available") + dd').getByText('5.000000 USD').waitFor();
    const refusal = await redeem(gateway.url, key, 'AAAA-BBBB');
    await redeemForm.getByLabel('Code').fill('AAAA-BBBB');
    await redeemForm.getByRole('button', { name: 'Redeem' }).click();
    await customer.page.getByRole('alert').getByText(refusal.body.error.message).waitFor();
    expect(await fitsTheScreen(customer.page)).to.equal(true);
    await shoot(customer.page, 'customer-redeem-phone');

    await page.reload();
    const batch = page.getByRole('listitem', { name: `Batch ${batchId}` });
    await batch.getByText('2 active · 1 redeemed · 0 voided · 0 expired').waitFor();
    await batch.getByText('Codes', { exact: true }).click();
    const row = batch.getByRole('row').filter({ hasText: listed[0] });
    expect(await row.locator('td[data-label="Redeemed by"]').textContent()).to.equal(customerId);
    await batch.getByRole('button', { name: `Void ${listed[1]}` }).click();
    await batch.getByRole('row').filter({ hasText: listed[1] }).locator('.badge-voided').waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await batch.getByRole('button', { name: 'Void the unredeemed codes' }).click();
    await batch.getByText('0 active · 1 redeemed · 2 voided · 0 expired').waitFor();
    expect((await gateway.admin('GET', `/admin/v1/redeem-batches/${batchId}`)).body).to.include({ active: 0, redeemed: 1, voided: 2 });
  });

  it('the Catalogue screen shows every provider and model, why some cannot be reached, the retired ones and the aliases', async () => {
    const { page } = operator;
    await page.getByRole('link', { name: 'Catalogue' }).click();
    const api = (await gateway.admin('GET', '/admin/v1/catalogue')).body;
    const providers = page.getByRole('table', { name: 'Providers' });
    const anthropic = providers.getByRole('row').filter({ has: page.locator('td[data-label="Provider"]', { hasText: /^anthropic$/ }) });
    expect(await anthropic.locator('td[data-label="Credential"]').textContent()).to.equal('ANTHROPIC_API_KEY not set');
    expect(await anthropic.locator('td[data-label="State"]').textContent()).to.contain('credential_missing');
    const models = page.getByRole('table', { name: 'Models', exact: true });
    const sonnet = api.models.find((m: any) => m.id === 'anthropic/claude-sonnet-5');
    const sonnetRow = models.getByRole('row').filter({ has: page.locator('td[data-label="Model"]', { hasText: /^anthropic\/claude-sonnet-5$/ }) });
    expect(await sonnetRow.locator('td[data-label="State"]').textContent()).to.equal(`unreachable ${sonnet.reason}`);
    const sora = models.getByRole('row').filter({ has: page.locator('td[data-label="Model"]', { hasText: /^sandbox\/sora-2/ }) });
    expect(await sora.locator('td[data-label="State"]').textContent()).to.contain('retired');
    const alias = page.getByRole('table', { name: 'Aliases' }).getByRole('row').filter({ hasText: 'claude-opus-5-5' });
    expect(await alias.locator('td[data-label="Answered by"]').textContent()).to.equal('sandbox/claude-opus');
    expect(await models.locator('tbody tr').count()).to.equal(api.models.length);
    expect(await page.content()).to.not.contain('api.anthropic.com');
  });

  it('the key forms restrict a key to models (unlisted ones included) and lift the restriction', async () => {
    const { page } = operator;
    await page.goto(`${gateway.url}/console/#/operator/customers/${customerId}`);
    await page.getByText('Create a key').click();
    const create = page.getByRole('form', { name: 'Create a key' });
    await create.getByLabel('Key name').fill('haiku only');
    await create.getByLabel('only these').check();
    await create.getByRole('group', { name: 'Models the key may reach' }).getByLabel('sandbox/claude-haiku', { exact: true }).check();
    await create.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByLabel('New key haiku only').inputValue();
    const item = page.getByRole('listitem', { name: 'Key haiku only' });
    await item.getByText('Models: sandbox/claude-haiku').waitFor();
    const keyId = (await item.locator('p.meta code').first().textContent())!;
    expect((await gateway.admin('GET', `/admin/v1/api-keys/${keyId}`)).body.allowed_models).to.deep.equal(['sandbox/claude-haiku']);
    const models = (await (await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })).json()) as any;
    expect(models.data.map((m: any) => m.id)).to.deep.equal(['sandbox/claude-haiku']);

    await item.getByText('Models, limits and expiry').click();
    const limits = item.getByRole('form', { name: 'Limits of haiku only' });
    await limits.getByRole('group', { name: 'Models the key may reach' }).getByLabel('sandbox/chat-model', { exact: true }).check();
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await item.getByText('Models: sandbox/claude-haiku, sandbox/chat-model').waitFor(); // the form stays open
    await item.getByRole('form', { name: 'Limits of haiku only' }).getByLabel('every listed model').check();
    await item.getByRole('form', { name: 'Limits of haiku only' }).getByRole('button', { name: 'Save limits' }).click();
    await item.getByText('Models: every listed model').waitFor();
    expect((await gateway.admin('GET', `/admin/v1/api-keys/${keyId}`)).body.allowed_models).to.equal(null);
  });

  it('a customer’s request log shows billable requests by default, and a free request’s receipt says it was free', async () => {
    const call = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/claude-haiku', max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    const messageId = call.headers.get('request-id')!;
    await call.arrayBuffer();
    await gateway.settled();
    await gateway.requestLog(messageId);
    const { page } = customer;
    await page.getByRole('link', { name: 'Requests' }).click();
    await page.getByRole('row').filter({ hasText: messageId }).waitFor();
    const endpoints = async () => page.locator('td[data-label="Endpoint"]').allTextContents();
    expect(new Set(await endpoints())).to.deep.equal(new Set(['messages_create'])); // not the console's own reads, nor the redemptions
    const filters = page.getByRole('form', { name: 'Request filters' });
    await filters.getByLabel('Show').selectOption('all');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('row').filter({ hasText: 'wallet_get' }).first().waitFor();
    expect(await endpoints()).to.include.members(['messages_create', 'wallet_get', 'key_get']);

    const read = page.getByRole('row').filter({ hasText: 'wallet_get' }).first();
    const readId = (await read.locator('td[data-label="Request id"]').textContent())!;
    await read.getByRole('link', { name: `Receipt of ${readId}` }).click();
    await page.getByRole('heading', { level: 1, name: `Receipt ${readId}` }).waitFor();
    expect(await page.locator('dt:text-is("Settled") + dd').textContent()).to.equal('never: the request was free');
    await page.getByText('Free: this request cannot be charged').waitFor();
  });

  it('on a phone the spend chart opens on today’s bar, however many days the range has', async () => {
    const { page } = customer;
    await page.getByRole('link', { name: 'Usage' }).click();
    const today = new Date().toISOString().slice(0, 10);
    const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    const days = page.getByRole('form', { name: 'Spend per day and model: days' });
    await days.getByLabel('From (UTC day)').fill(monthAgo);
    await days.getByLabel('To (UTC day, inclusive)').fill(today);
    await days.getByRole('button', { name: 'Show' }).click();
    const day = (date: string) => page.locator('svg[role="img"] g').filter({ has: page.locator('title', { hasText: new RegExp(`^${date}: `) }) });
    const bar = day(today).locator('rect').first();
    await bar.waitFor();
    await day(monthAgo).waitFor(); // the whole range is drawn
    const box = (await bar.boundingBox())!;
    const width = PHONE.viewport!.width;
    expect(box.x, `today's bar at x=${box.x}`).to.be.at.least(0);
    expect(box.x + box.width).to.be.at.most(width);
    expect(await fitsTheScreen(page)).to.equal(true);
  });
});
