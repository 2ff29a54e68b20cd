// The web console in a real browser: Debian's Chromium, headless, driven by playwright-core,
// against a test gateway with the sandbox providers. One story, in order: wrong credentials are
// refused in the API's words; an operator creates a customer (its name an XSS attempt), tops it
// up and creates a key with a spend cap; the customer signs in with that key on a phone and sees
// a call the test made, to the micro-unit, in its wallet, key and request log; an operator
// resolves a video task in review and the customer downloads the finished one; the customer reads
// a request's and a task's receipt, downloads an export that is the API's byte for byte, and sets a
// low-balance alert whose one webhook the operator then finds in the delivery log. Every screen is
// checked for script errors and policy violations, and the main ones are photographed into
// docs/console/ for docs/console.md.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { ROOT_DIR } from '../../src/config.ts';
import { formatMicros, parseMicros } from '../../src/shared/money.ts';
import { usingPostgres } from '../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { videoCalls } from '../helpers/videos.ts';
import { DESKTOP, PHONE, fitsTheScreen, openConsole, shoot, signInAsCustomer, signInAsOperator, type ConsolePage } from './console/browser.ts';

/** Markup in every name a user types: it must come back as the same text, never as elements. */
const XSS_NAME = `Acme <img src=x onerror="window.__xss='customer'"><script>window.__xss='script'</script>`;
const XSS_KEY = `ci <b onmouseover="window.__xss='key'">bold</b>`;
const QUICK = '[[sim queued_ms=0 running_ms=0]]';

describe(`console: operators and customers in Chromium (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(180_000);
  let browser: Browser;
  let gateway: TestGateway;
  let operator: ConsolePage;
  let customer: ConsolePage;
  let customerId: string;
  let secret: string;
  let videoKey: { id: string; key: string };

  before(async () => {
    const executablePath = execFileSync('bash', [path.join(ROOT_DIR, 'scripts/chromium-up.sh')], { encoding: 'utf8' }).trim();
    gateway = await startTestGateway({ env: { WEBHOOK_ALLOW_INTERNAL: '127.0.0.1', WEBHOOKS: 'true' } }); // the alerts job ticks as in production
    browser = await chromium.launch({ executablePath });
  });
  afterEach(function () {
    // Whatever the test did, no page may have hit a script error or a policy violation.
    for (const open of [operator, customer]) if (open) expect(open.problems, this.currentTest?.title).to.deep.equal([]);
  });
  after(async () => {
    await operator?.close();
    await customer?.close();
    await browser?.close();
    await gateway?.close();
  });

  it('refuses a wrong admin token and a wrong key in the API’s own words, and shows no operator screen without the token', async () => {
    const page = await openConsole(browser, gateway.url, DESKTOP);
    try {
      await page.page.goto(`${gateway.url}/console/#/operator/customers`);
      await page.page.getByRole('form', { name: 'Operator sign-in' }).waitFor();
      expect(await page.page.getByRole('navigation').count()).to.equal(0);
      const adminRefusal = (await fetch(`${gateway.url}/admin/v1/customers`, { headers: { authorization: 'Bearer adm_wrong_token' } }).then((r) =>
        r.json(),
      )) as any;
      await signInAsOperator(page.page, 'adm_wrong_token');
      const alert = page.page.getByRole('form', { name: 'Operator sign-in' }).getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).to.contain(adminRefusal.error.message);
      const keyRefusal = (await fetch(`${gateway.url}/v1/key`, { headers: { authorization: 'Bearer sk-gw-notakey' } }).then((r) => r.json())) as any;
      await signInAsCustomer(page.page, 'sk-gw-notakey');
      const keyAlert = page.page.getByRole('form', { name: 'Customer sign-in' }).getByRole('alert');
      await keyAlert.waitFor();
      expect(await keyAlert.textContent()).to.contain(keyRefusal.error.message);
      await shoot(page.page, 'sign-in');
      expect(page.problems).to.deep.equal([]);
    } finally {
      await page.close();
    }
  });

  it('an operator creates a customer, tops it up (a reference credits once) and creates a key with a spend cap whose secret is shown once', async () => {
    operator = await openConsole(browser, gateway.url, DESKTOP);
    const { page } = operator;
    await signInAsOperator(page, gateway.adminToken);
    await page.getByRole('heading', { name: 'Customers' }).waitFor();
    const form = page.getByRole('form', { name: 'New customer' });
    await form.getByLabel('Name').fill(XSS_NAME);
    await form.getByRole('button', { name: 'Create customer' }).click();
    await page.getByRole('heading', { level: 1, name: XSS_NAME }).waitFor();
    customerId = decodeURIComponent(page.url().split('/').at(-1)!);
    expect(customerId).to.match(/^cus_/);
    expect(await page.locator('main img, main script').count()).to.equal(0);

    const topUp = page.getByRole('form', { name: 'Top up' });
    await topUp.getByLabel('Top-up amount').fill('25.5');
    await topUp.getByLabel('Reference').fill('inv-1');
    await topUp.getByRole('button', { name: 'Top up' }).click();
    await page.getByText('Credited 25.500000.').waitFor();
    await page.getByText('top_up:inv-1').waitFor(); // the journal reloads with the entry
    await topUp.getByLabel('Top-up amount').fill('25.5');
    await topUp.getByLabel('Reference').fill('inv-1');
    await topUp.getByRole('button', { name: 'Top up' }).click();
    await page.getByText('Already credited under this reference: nothing changed.').waitFor();
    const refusal = await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '0', reference: 'inv-0' });
    await topUp.getByLabel('Top-up amount').fill('0');
    await topUp.getByLabel('Reference').fill('inv-0');
    await topUp.getByRole('button', { name: 'Top up' }).click();
    expect(await page.getByRole('alert').textContent()).to.contain(refusal.body.error.message);
    expect((await gateway.wallet(customerId)).available).to.equal('25.500000');
    expect(await page.getByRole('definition').first().textContent()).to.equal('25.500000 USD');

    await page.getByText('Create a key').click();
    const create = page.getByRole('form', { name: 'Create a key' });
    await create.getByLabel('Key name').fill(XSS_KEY);
    await create.getByLabel('Spend limit').fill('0.50');
    await create.getByLabel('Spend period').selectOption('total');
    await create.getByRole('button', { name: 'Create key' }).click();
    secret = await page.getByLabel(`New key ${XSS_KEY}`).inputValue();
    expect(secret).to.match(/^sk-gw-[A-Za-z0-9]{40}$/);
    const item = page.getByRole('listitem', { name: `Key ${XSS_KEY}` });
    await item.getByText('Limits: spend 0.500000 per lifetime').waitFor();
    await shoot(page, 'operator-customer');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: XSS_NAME }).waitFor();
    expect(await page.content()).to.not.contain(secret.slice(6));
    expect(await page.evaluate('window.__xss')).to.equal(undefined);
  });

  it('the customer signs in with that key on a phone and sees a call made by the test in its wallet, key spend and request log, exactly', async () => {
    const call = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': secret, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/claude-haiku', max_tokens: 32, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(call.status).to.equal(200);
    const log = await gateway.requestLog(call.headers.get('request-id')!);
    const cost = parseMicros(log.cost);
    expect(cost > 0n).to.equal(true);
    const wallet = await gateway.wallet(customerId); // charges posted, grants given back
    expect(wallet.available).to.equal(formatMicros(25_500_000n - cost));

    customer = await openConsole(browser, gateway.url, PHONE);
    const { page } = customer;
    await signInAsCustomer(page, secret);
    await page.getByRole('heading', { name: 'Wallet and key' }).waitFor();
    const figure = (term: string) => page.locator(`dt:text-is("${term}") + dd`);
    await figure('Available').getByText(`${wallet.available} USD`).waitFor();
    expect(await figure('Spent in total').textContent()).to.equal(`${log.cost} USD`);
    expect(await figure('Limits').textContent()).to.equal('spend 0.500000 per lifetime');
    expect(await figure('Name').textContent()).to.contain(XSS_KEY);
    expect(await fitsTheScreen(page)).to.equal(true);
    await shoot(page, 'customer-wallet-phone');

    await page.getByRole('link', { name: 'Requests' }).click();
    const row = page.getByRole('row').filter({ hasText: log.request_id });
    await row.waitFor();
    expect(await row.locator('td[data-label="Cost"]').textContent()).to.equal(log.cost);
    expect(await row.locator('td[data-label="Model"]').textContent()).to.equal('sandbox/claude-haiku');
    // Shown in the reader's zone (New York here), the UTC instant on hover.
    const time = row.locator('time');
    expect(await time.getAttribute('title')).to.equal(`${new Date(log.created_at).toISOString().slice(0, 19).replace('T', ' ')} UTC`);
    expect(await time.textContent()).to.match(/E[SD]T|GMT-[45]/);
    expect(await fitsTheScreen(page)).to.equal(true);
    await shoot(page, 'customer-requests-phone');

    // The request id opens its receipt: the charge to the micro-unit, the price version, the journal.
    const receipt = (await fetch(`${gateway.url}/v1/requests/${log.request_id}`, { headers: { authorization: `Bearer ${secret}` } }).then((r) =>
      r.json(),
    )) as any;
    expect(receipt.charge.total).to.equal(log.cost);
    await row.getByRole('link', { name: `Receipt of ${log.request_id}` }).click();
    await page.getByRole('heading', { level: 1, name: `Receipt ${log.request_id}` }).waitFor();
    expect(await figure('Charged').textContent()).to.equal(`${log.cost} USD`);
    expect(await figure('Usage').textContent()).to.contain(receipt.measurement.explanation);
    expect(await page.getByText(`Price version ${receipt.price.version} of sandbox/claude-haiku`).count()).to.equal(1);
    const priced = page.locator('dl[aria-label="Units priced"]');
    expect(await priced.locator('dt:text-is("output_tokens") + dd').textContent()).to.equal(String(receipt.usage.billed.output_tokens));
    const reported = page.locator('dl[aria-label="Usage as reported"]');
    expect(await reported.locator('dt:text-is("output_tokens") + dd').textContent()).to.equal(String(receipt.usage.reported.output_tokens));
    const entries = page.getByRole('table', { name: 'Journal entries of this receipt' }).locator('tbody tr');
    expect(await entries.count()).to.equal(receipt.journal.length);
    expect(await fitsTheScreen(page)).to.equal(true);
    await shoot(page, 'customer-receipt-phone');

    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByText(`Total spend`).waitFor();
    expect(await page.locator('p.total .amount').textContent()).to.equal(`${log.cost} USD`);
    expect(await page.locator('svg[role="img"] rect title').first().textContent()).to.contain(`sandbox/claude-haiku: ${log.cost} USD`);

    // The export of today (UTC) as CSV: the file saved is the API's answer byte for byte, its totals line the call's cost.
    // Today has not ended: the console leaves `to` out, and the API exports up to its watermark.
    const today = new Date().toISOString().slice(0, 10);
    const form = page.getByRole('form', { name: 'Export charges' });
    await form.getByLabel('Export from (UTC day)').fill(today);
    await form.getByLabel('Export to (UTC day, inclusive)').fill(today);
    await form.getByLabel('Format').selectOption('csv');
    const [download] = await Promise.all([page.waitForEvent('download'), form.getByRole('button', { name: 'Download export' }).click()]);
    const saved = fs.readFileSync((await download.path())!, 'utf8');
    const direct = await fetch(`${gateway.url}/v1/usage/export?from=${today}&format=csv`, { headers: { authorization: `Bearer ${secret}` } });
    expect(saved).to.equal(await direct.text());
    expect(download.suggestedFilename()).to.match(new RegExp(`^usage-${customerId}-.*\\.csv$`));
    const lines = saved.trim().split('\r\n');
    expect(lines.some((line) => line.includes(log.request_id))).to.equal(true);
    const header = lines[0]!.split(',');
    expect(lines.at(-1)!.split(',')[header.indexOf('charged')]).to.equal(log.cost);
    await page.getByText(`Saved ${download.suggestedFilename()}.`).waitFor();
  });

  it('an operator settles a video task in review by hand; the customer downloads its finished video', async () => {
    const other = await gateway.admin('POST', `/admin/v1/customers/${customerId}/api-keys`, { name: 'videos' });
    videoKey = { id: other.body.id, key: other.body.key };
    const videos = videoCalls(gateway, videoKey.key);
    const review = (await videos.create({ model: 'sandbox/seedance', prompt: `a lighthouse ${QUICK} [[sim no_duration]]` })).body;
    expect((await videos.finish(review.task_id)).task_status).to.equal('review');
    const done = (await videos.create({ model: 'sandbox/seedance', prompt: `a calico cat ${QUICK}` })).body;
    expect((await videos.finish(done.task_id)).task_status).to.equal('completed');

    const { page } = operator;
    await page.getByRole('link', { name: 'Video tasks' }).click();
    const task = page.getByRole('listitem', { name: `Video task ${review.task_id}` });
    await task.waitFor();
    const resolve = task.getByRole('form', { name: `Resolve video task ${review.task_id}` });
    await resolve.getByLabel('Settle (charge)').check();
    await resolve.getByLabel('Amount to charge').fill('0.4');
    await resolve.getByLabel('Your name').fill('ops@example.com');
    await resolve.getByLabel('Reason').fill('Checked the file by hand: 5 s at 720p.');
    await shoot(page, 'operator-video-review');
    await resolve.getByRole('button', { name: 'Resolve' }).click();
    await page.getByText('No task is waiting for review.').waitFor();
    const settled = (await gateway.admin('GET', `/admin/v1/video-tasks/${review.task_id}`)).body;
    expect(settled).to.include({ status: 'completed', billed_amount: '0.400000' });

    const customerPage = customer.page;
    await customerPage.getByRole('link', { name: 'Videos' }).click();
    const item = customerPage.getByRole('listitem', { name: `Video task ${done.task_id}` });
    await item.waitFor();
    const reviewed = customerPage.getByRole('listitem', { name: `Video task ${review.task_id}` });
    await reviewed.getByText('billed 0.400000 USD').waitFor();
    const [download] = await Promise.all([customerPage.waitForEvent('download'), item.getByRole('button', { name: 'Download video' }).click()]);
    const file = fs.readFileSync((await download.path())!);
    const direct = Buffer.from(await (await videos.content(done.task_id)).arrayBuffer());
    expect(file.length).to.be.greaterThan(0);
    expect(file.equals(direct)).to.equal(true);
    expect(download.suggestedFilename()).to.equal(`${done.task_id}.mp4`);
    await shoot(customerPage, 'customer-videos-phone');

    // The settled task's receipt says what the operator charged, and why it was not measured.
    const receipt = (await fetch(`${gateway.url}/v1/requests/${review.task_id}`, { headers: { authorization: `Bearer ${videoKey.key}` } }).then((r) =>
      r.json(),
    )) as any;
    expect(receipt).to.deep.include({ type: 'video_task', task_status: 'completed' });
    expect(receipt.measurement.reason).to.equal('operator_settled');
    await reviewed.getByRole('link', { name: 'Receipt' }).click();
    await customerPage.getByRole('heading', { level: 1, name: `Receipt ${review.task_id}` }).waitFor();
    const figure = (term: string) => customerPage.locator(`dt:text-is("${term}") + dd`);
    expect(await figure('Charged').textContent()).to.equal(`${receipt.charge.total} USD`);
    expect(receipt.charge.total).to.equal('0.400000');
    expect(await figure('Usage').textContent()).to.equal(`${receipt.measurement.estimated ? 'estimated' : 'measured'} ${receipt.measurement.explanation}`);
    expect(await figure('Kind').textContent()).to.equal('Video task');
  });

  it('the customer sets a low-balance alert; exactly one signed webhook arrives and the operator finds its delivery and attempts', async () => {
    const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
    const hooks = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks`;
    try {
      const { page } = customer;
      await page.getByRole('link', { name: 'Alerts' }).click();
      const form = page.getByRole('form', { name: 'Alert settings' });
      await form.getByLabel('Threshold').fill('100');
      await form.getByLabel('Webhook URL').fill(hookUrl);
      await form.getByRole('button', { name: 'Save alert settings' }).click();
      await page.getByRole('status').getByText('Saved.').waitFor();
      const settings = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/alerts`)).body;
      expect(settings).to.include({ low_balance_threshold: '100.000000', webhook_url: hookUrl });
      expect(settings.webhook_secret).to.match(/^whsec_/);

      // The balance (about 25) is already below 100: one balance.low, then the alert waits to re-arm.
      for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 1_500)); // a second check must not send another
      expect(received.map((r) => JSON.parse(r.body).type)).to.deep.equal(['balance.low']);
      await page.getByRole('link', { name: 'Wallet and key' }).click();
      await page.getByRole('link', { name: 'Alerts' }).click();
      await page.locator('dt:text-is("Alert") + dd').getByText('the balance is below the threshold').waitFor();
      await page.getByText('Signing secret', { exact: true }).click();
      expect(await page.getByLabel('Webhook signing secret').inputValue()).to.equal(settings.webhook_secret);
      expect(await fitsTheScreen(page)).to.equal(true);
      await shoot(page, 'customer-alerts-phone');

      const operatorPage = operator.page;
      await operatorPage.getByRole('link', { name: 'Webhooks' }).click();
      const filters = operatorPage.getByRole('form', { name: 'Webhook filters' });
      await filters.getByLabel('Customer id').fill(customerId);
      await filters.getByLabel('Status').selectOption('delivered');
      await filters.getByRole('button', { name: 'Apply' }).click();
      const id = String(received[0]!.headers['webhook-id']);
      const item = operatorPage.getByRole('listitem', { name: `Webhook ${id}` });
      await item.waitFor();
      expect(await operatorPage.getByRole('listitem').filter({ hasText: 'balance.low' }).count()).to.equal(1);
      await item.getByText('Attempts and payload').click();
      const attempt = item.getByRole('table', { name: `Attempts of ${id}` }).locator('tbody tr');
      expect(await attempt.count()).to.equal(1);
      expect(await attempt.locator('td[data-label="Answer"]').textContent()).to.equal('204');
      expect(JSON.parse((await item.locator('pre').textContent())!)).to.deep.equal(JSON.parse(received[0]!.body));
      await shoot(operatorPage, 'operator-webhooks');

      // The operator sees and changes the same settings on the customer's page: no threshold, no alert.
      await operatorPage.goto(`${gateway.url}/console/#/operator/customers/${customerId}`);
      const operatorForm = operatorPage.getByRole('form', { name: 'Alert settings' });
      expect(await operatorForm.getByLabel('Threshold').inputValue()).to.equal('100.000000');
      await operatorForm.getByLabel('Threshold').fill('');
      await operatorForm.getByRole('button', { name: 'Save alert settings' }).click();
      await operatorPage.locator('dt:text-is("Low-balance threshold") + dd').getByText('none').waitFor();
      expect((await gateway.admin('GET', `/admin/v1/customers/${customerId}/alerts`)).body.low_balance_threshold).to.equal(null);
    } finally {
      hooks.close();
    }
  });

  it('the operator screens read the API: request logs by customer, holds, reconciliation, catalogue prices, spend per day and model', async () => {
    const { page } = operator;
    await page.getByRole('link', { name: 'Request logs' }).click();
    const filters = page.getByRole('form', { name: 'Request log filters' });
    await filters.getByLabel('Customer id').fill(customerId);
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('row').filter({ hasText: 'messages_create' }).first().waitFor();
    expect(await page.getByRole('row').filter({ hasText: 'messages_create' }).count()).to.equal(1);
    await shoot(page, 'operator-request-logs');
    const requestId = (await page.getByRole('row').filter({ hasText: 'messages_create' }).locator('td[data-label="Request id"]').textContent())!;
    const receipt = (await gateway.admin('GET', `/admin/v1/receipts/${requestId}`)).body;
    await page.getByRole('link', { name: `Receipt of ${requestId}` }).click();
    await page.getByRole('heading', { level: 1, name: `Receipt ${requestId}` }).waitFor();
    expect(await page.locator('dt:text-is("Charged") + dd').textContent()).to.equal(`${receipt.charge.total} USD`);
    expect(await page.locator('dt:text-is("From the hold") + dd').textContent()).to.equal(`${receipt.charge.from_hold} USD`);
    expect(await page.locator('dt:text-is("From the balance, beyond the hold") + dd').textContent()).to.equal(`${receipt.charge.from_balance} USD`);
    expect(await page.getByRole('link', { name: 'Request logs' }).first().getAttribute('aria-current')).to.equal('page');

    await page.getByRole('link', { name: 'Holds' }).click();
    await page
      .getByText(/No hold matches|Hold /)
      .first()
      .waitFor();

    await page.getByRole('link', { name: 'Reconciliation' }).click();
    await page.getByText(/^OK: every wallet equals its journal, every charge its priced usage/).waitFor();
    const checked = (await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body.priced.checked;
    await page.getByText(new RegExp(`${checked} requests and tasks charged from .+ priced again`)).waitFor();

    await page.getByRole('link', { name: 'Catalogue' }).click();
    const pricing = (await fetch(`${gateway.url}/v1/models/pricing`).then((r) => r.json())) as any;
    const haiku = pricing.data.find((m: any) => m.model === 'sandbox/claude-haiku');
    const haikuRow = page.getByRole('row').filter({ hasText: 'sandbox/claude-haiku' });
    expect(await haikuRow.locator('td[data-label="Price"]').textContent()).to.contain(`in ${haiku.price.input_per_mtok} · out ${haiku.price.output_per_mtok}`);
    await shoot(page, 'operator-catalogue');

    await page.getByRole('link', { name: 'Spend' }).click();
    const usage = (await gateway.admin('GET', '/admin/v1/usage')).body;
    await page.locator('p.total .amount').getByText(`${usage.total_spend} USD`).waitFor();
    expect(await page.locator('svg[role="img"]').count()).to.equal(1);
    await shoot(page, 'operator-spend');
  });

  it('an operator limits a key, rotates it with a grace period (both secrets work) and revokes it (neither does)', async () => {
    const { page } = operator;
    const keyStatus = (key: string) => fetch(`${gateway.url}/v1/key`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
    await page.goto(`${gateway.url}/console/#/operator/customers/${customerId}`);
    const item = page.getByRole('listitem', { name: 'Key videos' });
    await item.getByText('Limits and expiry').click();
    const limits = item.getByRole('form', { name: 'Limits of videos' });
    await limits.getByLabel('Requests per minute').fill('60');
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await item.getByText('Limits: 60 requests/min').waitFor();
    expect((await gateway.admin('GET', `/admin/v1/api-keys/${videoKey.id}`)).body.limits).to.deep.equal({
      requests_per_minute: 60,
      max_concurrent: null,
      spend_limit: null,
    });

    await item.getByText('Rotate', { exact: true }).click();
    const rotate = item.getByRole('form', { name: 'Rotate videos' });
    await rotate.getByLabel('Grace seconds').fill('3600');
    await rotate.getByRole('button', { name: 'Rotate key' }).click();
    const rotated = await item.getByLabel('New secret').inputValue();
    expect(rotated)
      .to.match(/^sk-gw-/)
      .and.not.equal(videoKey.key);
    await item.getByText('previous secret valid until').waitFor();
    expect([await keyStatus(videoKey.key), await keyStatus(rotated)]).to.deep.equal([200, 200]);

    page.once('dialog', (dialog) => void dialog.accept());
    await item.getByRole('button', { name: 'Revoke' }).click();
    await item.locator('.badge-revoked').waitFor();
    expect([await keyStatus(videoKey.key), await keyStatus(rotated)]).to.deep.equal([401, 401]);
  });

  it('a suspended customer is told so on its next screen, in the API’s words', async () => {
    const { page } = operator;
    await page.goto(`${gateway.url}/console/#/operator/customers/${customerId}`);
    await page.getByRole('button', { name: 'Suspend customer' }).click();
    await page.getByRole('button', { name: 'Reactivate customer' }).waitFor();
    const refusal = (await fetch(`${gateway.url}/v1/wallet`, { headers: { authorization: `Bearer ${secret}` } }).then((r) => r.json())) as any;
    await customer.page.getByRole('link', { name: 'Wallet and key' }).click();
    await customer.page.getByRole('alert').first().waitFor();
    expect(await customer.page.getByRole('alert').first().textContent()).to.contain(refusal.error.message);
  });
});
