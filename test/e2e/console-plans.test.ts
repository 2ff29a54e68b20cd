// The console's price plans, customers' pricing and margin screens in Chromium (issue 37, item 5),
// against a test gateway with the sandbox providers: an operator creates a plan (a refused price
// shows the API's words), puts a customer on it (audited), changes it; the customer sees its
// plan's prices on a phone and the rule on a receipt; the operator sees the upstream cost on the
// receipt and the margin by customer and model. Screens are checked for script errors and policy
// violations, and photographed for docs/console.md.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { ROOT_DIR } from '../../src/config.ts';
import { usingPostgres } from '../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { DESKTOP, PHONE, fitsTheScreen, openConsole, shoot, signInAsCustomer, signInAsOperator, type ConsolePage } from './console/browser.ts';

describe(`console: price plans, pricing and margin in Chromium (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(180_000);
  let browser: Browser;
  let gateway: TestGateway;
  let operator: ConsolePage;
  let customer: ConsolePage;
  let who: { customerId: string; keyId: string; key: string };
  let planId: string;

  before(async () => {
    execFileSync(process.execPath, [path.join(ROOT_DIR, 'scripts/build-console.js'), '--quiet'], { stdio: 'inherit' });
    const executablePath = execFileSync('bash', [path.join(ROOT_DIR, 'scripts/chromium-up.sh')], { encoding: 'utf8' }).trim();
    gateway = await startTestGateway();
    browser = await chromium.launch({ executablePath });
    who = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${who.customerId}/credits`, { amount: '10.00', reference: 'fund' });
  });
  afterEach(function () {
    for (const open of [operator, customer]) if (open) expect(open.problems, this.currentTest?.title).to.deep.equal([]);
  });
  after(async () => {
    await operator?.close();
    await customer?.close();
    await browser?.close();
    await gateway?.close();
  });

  const row = (page: ConsolePage['page'], table: string, text: string) => page.getByRole('table', { name: table }).getByRole('row').filter({ hasText: text });

  it('an operator creates a plan (a price that cannot be charged is refused in the API’s words) and sees its prices beside route costs', async () => {
    operator = await openConsole(browser, gateway.url, DESKTOP);
    const { page } = operator;
    await signInAsOperator(page, gateway.adminToken);
    await page.getByRole('link', { name: 'Price plans' }).click();
    await page.getByText('No plan yet: every customer pays the list prices.').waitFor();
    const form = page.getByRole('form', { name: 'New plan' });
    await form.getByLabel('Plan name').fill('Partner');
    await form.getByLabel('Multiplier of list prices').fill('0.8');
    await form.getByLabel('Overrides (JSON)').fill('[{"model": "sandbox/seedance", "price": {"input_per_mtok": "1.00"}}]');
    await form.getByRole('button', { name: 'Create plan' }).click();
    const refusal = await gateway.admin('POST', '/admin/v1/plans', {
      name: 'Partner',
      overrides: [{ model: 'sandbox/seedance', price: { input_per_mtok: '1.00' } }],
    });
    expect(await form.getByRole('alert').textContent()).to.contain(refusal.body.error.message);
    await form.getByLabel('Overrides (JSON)').fill('[{"model": "sandbox/seedance", "price": {"per_second": {"720p": "0.08"}}}]');
    await form.getByLabel('Your name').fill('alice');
    await form.getByRole('button', { name: 'Create plan' }).click();
    await page.getByRole('heading', { level: 1, name: 'Partner' }).waitFor();
    planId = decodeURIComponent(page.url().split('/').at(-1)!);
    expect(planId).to.match(/^plan_/);
    const haiku = row(page, 'What its customers pay', 'sandbox/claude-haiku');
    await haiku.waitFor();
    expect(await haiku.locator('td[data-label="Priced by"]').textContent()).to.equal('plan Partner (version 1) × 0.800000');
    expect(await haiku.locator('td[data-label="Price"]').textContent()).to.contain('in 0.800000 · out 4.000000');
    expect(await haiku.locator('td[data-label="Upstream cost"]').textContent()).to.contain('sandbox-anthropic: in 0.600000 · out 3.000000');
    const seedance = row(page, 'What its customers pay', 'sandbox/seedance');
    expect(await seedance.locator('td[data-label="Priced by"]').textContent()).to.equal('plan Partner (version 1), for this model');
    expect(await seedance.locator('td[data-label="Price"]').textContent()).to.contain('720p 0.080000');
    await row(page, 'Pricing changes', 'alice').waitFor();
    await shoot(page, 'operator-plan');
  });

  it('the operator puts a customer on the plan; the customer sees its prices on a phone, and a receipt names the rule', async () => {
    const { page } = operator;
    await page.goto(`${gateway.url}/console/#/operator/customers/${who.customerId}`);
    const form = page.getByRole('form', { name: 'Pricing' });
    await form.getByText('On list prices').waitFor();
    await form.getByLabel('Price plan').selectOption({ label: 'Partner' });
    await form.getByLabel('Your name').fill('carol');
    await form.getByRole('button', { name: 'Save pricing' }).click();
    await page.getByRole('form', { name: 'Pricing' }).getByText('On Partner (version 1)').waitFor();
    expect((await gateway.admin('GET', `/admin/v1/customers/${who.customerId}/pricing`)).body.plan).to.include({ id: planId });
    await row(page, 'Pricing changes', 'carol').waitFor();
    await row(page, 'What it pays', 'sandbox/claude-haiku').getByText('plan Partner (version 1) × 0.800000').waitFor();

    customer = await openConsole(browser, gateway.url, PHONE);
    await signInAsCustomer(customer.page, who.key);
    await customer.page.getByRole('link', { name: 'Prices' }).click();
    const priced = (await (await fetch(`${gateway.url}/v1/models/pricing`, { headers: { authorization: `Bearer ${who.key}` } })).json()) as any;
    const haiku = priced.data.find((m: any) => m.model === 'sandbox/claude-haiku');
    const mine = row(customer.page, 'Your prices', 'sandbox/claude-haiku');
    await mine.waitFor();
    expect(await mine.locator('td[data-label="Price"]').textContent()).to.contain(`in ${haiku.price.input_per_mtok} · out ${haiku.price.output_per_mtok}`);
    expect(await mine.locator('td[data-label="Priced by"]').textContent()).to.equal('plan Partner (version 1) × 0.800000');
    expect(await customer.page.content()).to.not.contain('sandbox-anthropic'); // no route, no cost
    expect(await fitsTheScreen(customer.page)).to.equal(true);
    await shoot(customer.page, 'customer-prices-phone');

    const call = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': who.key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/claude-haiku', max_tokens: 32, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    const requestId = call.headers.get('request-id')!;
    await call.text();
    await gateway.requestLog(requestId);
    await customer.page.goto(`${gateway.url}/console/#/customer/requests/${requestId}`);
    await customer.page.getByText('priced by plan Partner (version 1) × 0.800000').waitFor();
    expect(await customer.page.locator('dt:text-is("Upstream cost")').count()).to.equal(0);

    // The operator's receipt adds what it cost upstream.
    const receipt = (await gateway.admin('GET', `/admin/v1/receipts/${requestId}`)).body;
    await page.goto(`${gateway.url}/console/#/operator/requests/${requestId}`);
    await page.locator('dt:text-is("Upstream cost") + dd').getByText(`${receipt.upstream_cost.amount} USD via sandbox-anthropic`).waitFor();
  });

  it('a plan change is a new version its customers pay from their next request; the margin screen shows revenue, cost and margin', async () => {
    const { page } = operator;
    await page.goto(`${gateway.url}/console/#/operator/plans/${planId}`);
    const form = page.getByRole('form', { name: 'Change the plan' });
    await form.getByLabel('Multiplier of list prices').fill('0.75');
    await form.getByRole('button', { name: 'Save the plan' }).click();
    await page.getByText('Saved as version 2').waitFor();
    await customer.page.getByRole('link', { name: 'Prices' }).click();
    await row(customer.page, 'Your prices', 'sandbox/claude-haiku').getByText('plan Partner (version 2) × 0.750000').waitFor();

    await page.getByRole('link', { name: 'Margin' }).click();
    // Today lasts: the screen and this read both end at the watermark (everything final so far).
    const today = new Date().toISOString().slice(0, 10);
    const report = (await gateway.admin('GET', `/admin/v1/usage/margin?from=${today}`)).body;
    await page.locator('dt:text-is("Margin") + dd').getByText(`${report.totals.margin} USD`).waitFor();
    const line = row(page, 'Margin by customer and model', 'sandbox/claude-haiku');
    expect(await line.locator('td[data-label="Upstream cost"]').textContent()).to.equal(report.data[0].upstream_cost);
    expect(await line.locator('td[data-label="Revenue"]').textContent()).to.equal(report.data[0].revenue);
    await shoot(page, 'operator-margin');
  });
});
