// What the console's browser test needs around Playwright: a page that records its script errors and
// policy violations, sign-ins, and screenshots written into docs/console/ for docs/console.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { ROOT_DIR } from '../../../src/config.ts';

export const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 860 }, locale: 'en-GB', timezoneId: 'Asia/Tokyo' };
export const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  locale: 'en-US',
  timezoneId: 'America/New_York',
};

// docs/console.md's images are rewritten only when asked (UPDATE_SCREENSHOTS=1), so a test run
// leaves the working tree clean; otherwise they go to a temporary folder (still taken: a page
// that cannot be drawn fails the test).
export const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1' ? path.join(ROOT_DIR, 'docs', 'console') : fs.mkdtempSync(path.join(os.tmpdir(), 'console-screenshots-'));

export interface ConsolePage {
  page: Page;
  /** Script errors and Content-Security-Policy or Trusted Types violations seen so far. */
  problems: string[];
  close(): Promise<void>;
}

export async function openConsole(browser: Browser, url: string, options: BrowserContextOptions): Promise<ConsolePage> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A refused API call is logged by Chromium as a failed resource; the screen shows it, as tested.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  await page.goto(`${url}/console/`);
  return { page, problems, close: () => context.close() };
}

export async function signInAsOperator(page: Page, token: string): Promise<void> {
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in as operator' }).click();
}

export async function signInAsCustomer(page: Page, key: string): Promise<void> {
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in with API key' }).click();
}

/** A screenshot for docs/console.md: the whole page, written over the previous one. */
export async function shoot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** The page is no wider than the screen (nothing to scroll sideways but the tables and chart that scroll themselves). */
export async function fitsTheScreen(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) as boolean;
}
