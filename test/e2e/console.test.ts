// The web console in a real browser: Debian's Chromium, headless, driven by playwright-core,
// against a test gateway with the sandbox providers. One story, in order: wrong credentials are
// refused in the API's words; an operator creates a customer (its name an XSS attempt), tops it
// up and creates a key with a spend cap; the customer signs in with that key on a phone and sees
// a call the test made, to the micro-unit, in its wallet, key and request log; an operator
// resolves a video task in review and the customer downloads the finished one. Every screen is
// checked for script errors and policy violations, and the main ones are photographed into
// docs/console/ for docs/console.md.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
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
    execFileSync(process.execPath, [path.join(ROOT_DIR, 'scripts/build-console.js'), '--quiet'], { stdio: 'inherit' });
    const executablePath = execFileSync('bash', [path.join(ROOT_DIR, 'scripts/chromium-up.sh')], { encoding: 'utf8' }).trim();
    gateway = await startTestGateway();
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

    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByText(`Total spend`).waitFor();
    expect(await page.locator('p.total .amount').textContent()).to.equal(`${log.cost} USD`);
    expect(await page.locator('svg[role="img"] rect title').first().textContent()).to.contain(`sandbox/claude-haiku: ${log.cost} USD`);
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

    await page.getByRole('link', { name: 'Holds' }).click();
    await page
      .getByText(/No hold matches|Hold /)
      .first()
      .waitFor();

    await page.getByRole('link', { name: 'Reconciliation' }).click();
    await page.getByText(/^OK: every wallet equals its journal/).waitFor();

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
