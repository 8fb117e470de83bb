/**
 * The dashboard at /app end to end: the whole stack (startTestStack: API, worker with Chromium,
 * Temporal dev server, the replay server of the saved pages) and the real headless Chromium driven
 * with puppeteer-core, as a customer uses it: log in with an API key (keyboard only), post tasks
 * from a CSV file and by pasting ASINs and watch them finish, open a result, open the product's
 * price and rank charts, search the observed products, create and edit a subscription with alert
 * rules, read the delivery log and redeliver, read the usage per endpoint and the overview, and
 * lose a key revoked meanwhile. Each screen is written to docs/images/dashboard/<n>-<screen>.png
 * (README.md links them).
 *
 * The product's earlier history (180 days of daily observations) is stored before the test, as months
 * of monitoring would have left it; the newest observation is the one the test's task reads.
 */
import { storeRows } from '../support/observations.js';
import fs from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { resolveChromePath } from '../../worker/browser/chrome-path.js';
import { repoRoot, sharedPagesDir } from '../support/env.js';
import { describeNeeding, savedPages } from '../support/prerequisites.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { observe, productWith } from '../support/alerts.js';

/**
 * Where the screenshots go: `.scratch/dashboard` (git-ignored) on every run, so a test run leaves
 * the checkout clean; `UPDATE_SCREENSHOTS=1` writes the README's copies in docs/images/dashboard.
 */
const SHOTS = path.join(repoRoot, process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/images/dashboard' : '.scratch/dashboard');
const DAY = 86_400_000;
const PRODUCT = { asin: 'B07CL39Z8Q', marketplace: 'com' };

describeNeeding([savedPages], 'dashboard in headless Chromium', () => {
  let running: TestStack;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let base: string;
  let apiKey: string;
  let accountId: number;
  const pageErrors: string[] = [];

  /** Waits until the page's text contains `text`. */
  const seeText = (text: string, timeout = 30_000) => page.waitForFunction((t: string) => document.body.innerText.includes(t), { timeout }, text);
  /** Screenshot of the screen, after checking that every form control on it has a label. */
  const shot = async (name: string) => {
    const unlabeled = await page.$$eval('input, select, textarea', (els) => els.filter((e) => !(e as HTMLInputElement).labels?.length && !e.getAttribute('aria-label')).map((e) => e.outerHTML.slice(0, 80)));
    expect(unlabeled, `${name}: form controls without a label`).toEqual([]);
    await page.evaluate(() => document.fonts.ready);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) as `${string}.png`, fullPage: true });
  };
  /** Goes to a screen from the navigation with the keyboard; the focus then moves to the screen's content. */
  const nav = async (label: string, heading: string) => {
    const [link] = await page.$$(`xpath/.//nav//a[normalize-space(.)="${label}"]`);
    await link!.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((h: string) => document.querySelector('h1')?.textContent?.startsWith(h), { timeout: 15_000 }, heading);
    // The screen moves the focus in an effect, after it has painted its heading.
    await page.waitForFunction(() => document.activeElement?.id === 'main', { timeout: 5_000 })
      .catch(async () => expect(await page.evaluate(() => document.activeElement?.id), `focus after going to ${label}`).toBe('main'));
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    running = await startTestStack({ pages: sharedPagesDir, env: { WEBHOOK_ALLOWLIST: `127.0.0.1:${receiver.port}`, SOURCE_READ_ATTEMPTS: '2' } });
    base = running.stack.api.url;
    const db = running.stack.db;
    const created = await createAccount(db, { login: 'dashboard', email: 'dashboard@example.com', balance: 5 });
    apiKey = created.api_key;
    accountId = created.id;
    const now = Date.now();
    await storeRows(db, Array.from({ length: 180 }, (_, i) => ({
        ...PRODUCT, observedAt: new Date(now - (180 - i) * DAY), status: 'ok', url: `https://www.amazon.com/dp/${PRODUCT.asin}`, parserVersion: 'seed',
        priceAmount: (i === 120 ? 1.49 : 2.49 + 0.4 * Math.sin(i / 9)).toFixed(2), priceCurrency: 'USD', bsrRank: Math.round(380_000 + 60_000 * Math.cos(i / 14) + 150 * i),
    })));
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await puppeteer.launch({ executablePath: resolveChromePath(process.env.CHROME_PATH), headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
    page = await browser.newPage();
    // Script errors and Content-Security-Policy refusals; failed loads are left out (product images
    // come from the marketplaces' hosts, out of reach here, and refused keys answer 401).
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
    });
    await page.setViewport({ width: 1280, height: 860 });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await receiver?.close();
  });

  it('serves the app at /app: index.html for every app path, hashed assets cached for a year, a missing asset 404', async () => {
    const index = await fetch(`${base}/app/tasks`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(base + script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('max-age=31536000,immutable');
    expect((await fetch(`${base}/app/assets/missing.js`)).status).toBe(404);
    // Nothing outside the build is served: an escaping path answers index.html.
    const escape = await fetch(`${base}/app/..%2f..%2fpackage.json`);
    expect([escape.status, escape.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
  });

  it('logs in with the API key typed and sent from the keyboard, and keeps it for the session', async () => {
    await page.goto(`${base}/app`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('label[for="api-key"]');
    await page.focus('#api-key');
    await page.keyboard.type('rda_live_wrong');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[role="alert"]');
    await page.$eval('#api-key', (el) => { (el as HTMLInputElement).value = ''; });
    await page.focus('#api-key');
    await page.keyboard.type(apiKey);
    await shot('1-login');
    await page.keyboard.press('Enter');
    await seeText('Tasks by status');
    expect(await page.evaluate(() => sessionStorage.getItem('rda.apiKey'))).toBe(apiKey);
    await page.reload({ waitUntil: 'networkidle0' });
    await seeText('Tasks by status');
  });

  it('posts a CSV file and pasted ASINs and shows them finish live; a finished task opens on its Product', async () => {
    await nav('Tasks', 'Tasks');
    const csv = path.join(running.dataDir, 'asins.csv');
    fs.writeFileSync(csv, 'asin,marketplace,tag\n0062796984,uk,from-csv\n');
    await (await page.$('input#csv-file'))!.uploadFile(csv);
    await page.waitForFunction(() => (document.querySelector('#asins') as HTMLTextAreaElement).value.includes('0062796984,uk'));
    await page.click('button[type="submit"]');
    await seeText('1 of 1 tasks accepted');
    await page.type('#asins', `${PRODUCT.asin}\nZZZZZZZZZ1`);
    await page.type('#task-tag', 'morning');
    await page.type('#task-postback', `${receiver.url}/postback`);
    await page.click('button[type="submit"]');
    await seeText('2 of 2 tasks accepted');
    // The list reads itself again while a task is queued or running; no reload here.
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('[data-testid="task-table"] tbody tr')];
      return rows.length === 3 && rows.every((r) => ['completed', 'failed'].includes(r.getAttribute('data-status') ?? ''));
    }, { timeout: 120_000, polling: 500 });
    const statuses = await page.$$eval('[data-testid="task-table"] tbody tr', (rows) => rows.map((r) => `${r.children[1]!.textContent} ${r.getAttribute('data-status')}`).sort());
    expect(statuses).toEqual(['0062796984 completed', `${PRODUCT.asin} completed`, 'ZZZZZZZZZ1 failed']);
    await seeText('none in progress');
    await shot('2-tasks');
    const [open] = await page.$$(`xpath/.//tr[td[normalize-space(.)="${PRODUCT.asin}"]]//a`);
    await open!.click();
    await page.waitForSelector('[data-testid="product-card"]');
    await seeText('completed (20000');
    expect(await page.$eval('[data-testid="price"]', (el) => el.textContent)).toMatch(/\$\d/);
    expect(await page.$eval('[data-testid="bsr"]', (el) => el.textContent)).toMatch(/#[\d,]+ in /);
    await shot('3-task-result');
  });

  it('opens the product with price and rank charts over 30, 90 and 180 days, min and max marked', async () => {
    const [history] = await page.$$('xpath/.//a[starts-with(normalize-space(.), "Price and rank history")]');
    await history!.click();
    await page.waitForSelector('[data-testid="chart-price"] canvas', { timeout: 30_000 });
    await page.waitForSelector('[data-testid="chart-bsr"] canvas');
    expect(await page.$eval('[data-testid="stats"]', (el) => el.textContent)).toMatch(/^9[01] observations · price min \$1\.49 \(/);
    // Two history reads at the standard plan's rate: the latest observation and the analytics.
    expect(await page.$eval('[data-testid="read-cost"]', (el) => el.textContent)).toContain('charged $0.0010');
    const [d180] = await page.$$('xpath/.//button[normalize-space(.)="180 days"]');
    await d180!.click();
    await page.waitForFunction(() => /^18[01] observations/.test(document.querySelector('[data-testid="stats"]')?.textContent ?? ''), { timeout: 30_000 });
    expect(await page.$eval('button[aria-pressed="true"]', (el) => el.textContent)).toBe('180 days');
    // The newest changes, newest first: the task's read moved the price from the last stored one.
    const changes = await page.$$eval('[data-testid="changes"] tbody tr', (rows) => rows.map((r) => [...r.children].slice(1, 4).map((td) => td.textContent)));
    expect(changes).toHaveLength(10);
    expect(changes.slice(0, 2)).toContainEqual(['price', expect.stringMatching(/^\d\.\d+$/), '2.27 USD']);
    await shot('4-product');
  });

  it('searches the observed products by title words', async () => {
    await nav('Products', 'Products');
    await page.waitForSelector('[data-testid="product-list"] li');
    expect(await page.$$eval('[data-testid="product-list"] li', (li) => li.length)).toBe(2);
    const title = await page.$eval('[data-testid="product-list"] li a', (a) => a.textContent ?? '');
    await page.type('#product-search', title.split(' ').slice(0, 2).join(' '));
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="product-list"] li').length === 1);
    await shot('5-products');
  });

  it('creates a subscription with an alert rule and shows it with the webhook delivery log', async () => {
    await nav('Subscriptions', 'Subscriptions');
    await page.type('#sub-asin', PRODUCT.asin);
    await page.select('#sub-frequency', 'hourly');
    await page.type('#sub-alert-url', `${receiver.url}/change`);
    const [addRule] = await page.$$('xpath/.//button[normalize-space(.)="Add alert rule"]');
    await addRule!.click();
    await page.select('#rule-type-0', 'price_below');
    await page.type('#rule-value-0', '20');
    const [create] = await page.$$('xpath/.//button[normalize-space(.)="Create subscription"]');
    await create!.click();
    await page.waitForSelector('[data-testid="subscription-result"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="subscription-table"] tbody')?.textContent?.includes('price_below 20'), { timeout: 15_000 });
    const row = await page.$eval('[data-testid="subscription-table"] tbody tr', (tr) => tr.textContent);
    expect(row).toContain('hourly');
    expect(row).toContain('armed');
    // The postbacks of the finished tasks are in the log, each with a Redeliver button.
    const postbacks = () => page.$$eval('[data-testid="delivery-table"] tbody tr', (rows) => rows.filter((r) => r.textContent?.includes('postback')).length);
    await page.waitForSelector('[data-testid="delivery-table"]', { timeout: 30_000 });
    for (let i = 0; i < 30 && (await postbacks()) < 2; i++) {
      // The second postback may still be on its way: read the log again.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await page.click('#deliveries-refresh');
    }
    expect(await postbacks()).toBe(2);
    await shot('6-subscriptions');
    const before = receiver.at('/postback').length;
    const [redeliver] = await page.$$('xpath/.//button[normalize-space(.)="Redeliver"]');
    await redeliver!.click();
    await seeText('Redelivery of');
    await expect.poll(() => receiver.at('/postback').length, { timeout: 30_000 }).toBe(before + 1);
    await page.select('#delivery-kind', 'change');
    await page.waitForSelector('[data-testid="no-delivery"]');
    await page.select('#delivery-kind', 'postback');
    await page.waitForSelector('[data-testid="delivery-table"]');
    // Edit: another frequency and a second rule; the first rule keeps its state.
    const [edit] = await page.$$('xpath/.//button[normalize-space(.)="Edit"]');
    await edit!.click();
    await page.waitForFunction(() => document.querySelector('#subscription-form')?.textContent?.startsWith('Edit'));
    await page.select('#sub-frequency', 'daily');
    const [another] = await page.$$('xpath/.//button[normalize-space(.)="Add alert rule"]');
    await another!.click();
    await page.select('#rule-type-1', 'bsr_below');
    await page.type('#rule-value-1', '100000');
    const [save] = await page.$$('xpath/.//button[normalize-space(.)="Save subscription"]');
    await save!.click();
    await page.waitForFunction(() => document.querySelector('[data-testid="subscription-table"] tbody')?.textContent?.includes('bsr_below 100000'), { timeout: 15_000 });
    const edited = await page.$eval('[data-testid="subscription-table"] tbody tr', (tr) => tr.textContent);
    expect(edited).toContain('daily');
    expect(edited).toContain('price_below 20');
  });

  it('shows usage and billing per endpoint, then the overview with its tiles and chart', async () => {
    await nav('Usage', 'Usage and billing');
    await page.waitForSelector('[data-testid="usage-endpoints"] tbody tr');
    const endpoints = await page.$$eval('[data-testid="usage-endpoints"] tbody tr td:first-child', (tds) => tds.map((td) => td.textContent));
    expect(endpoints).toEqual(expect.arrayContaining(['graphql']));
    expect(await page.$eval('[data-testid="usage-total"]', (el) => el.textContent)).toMatch(/^\$0\.\d{4}$/);
    await shot('7-usage');
    // A second subscription whose price fell below its rule's threshold: two monitoring runs stored
    // as the read activity stores them (test/support/alerts.ts), the second firing the rule.
    const db = running.stack.db;
    const prisma = db.prisma;
    const sub = await prisma.subscription.create({ data: { accountId, asin: 'B0ALERT001', marketplace: 'com', frequency: 'daily' } });
    await prisma.alertRule.create({ data: { subscriptionId: sub.id, position: 0, type: 'price_below', value: '20' } });
    await observe(db, sub.id, productWith('B0ALERT001', { price: { amount: 25, currency: 'USD' } }));
    await observe(db, sub.id, productWith('B0ALERT001', { price: { amount: 19.5, currency: 'USD' } }));
    await nav('Overview', 'Overview');
    await page.waitForSelector('[data-testid="chart-cost"] canvas');
    expect(await page.$eval('[data-testid="overview-subscriptions"]', (el) => el.textContent)).toBe('2');
    expect(await page.$eval('[data-testid="change-alerts"] tbody tr', (tr) => [...tr.children].slice(1).map((td) => td.textContent))).toEqual(['B0ALERT001 (com)', 'price_below', '25 USD', '19.5 USD']);
    expect(await page.$eval('[data-testid="tasks-by-status"]', (el) => el.textContent)).toMatch(/completed2.*failed1/);
    await shot('0-overview');
  });

  it('a key revoked meanwhile brings the login screen back with the reason, and forgets the key', async () => {
    await running.stack.db.prisma.apiKey.updateMany({ where: { accountId }, data: { revokedAt: new Date() } });
    // The screen's next request finds the key revoked: going to Tasks, or a request the overview was
    // still to make (the login screen is then back, the link gone, before the click). Clicked inside
    // the page, so a link the screen re-rendered meanwhile is found afresh.
    await page.evaluate(() => [...document.querySelectorAll<HTMLAnchorElement>('nav a')].find((a) => a.textContent?.trim() === 'Tasks')?.click());
    await page.waitForSelector('[data-testid="login-notice"]', { timeout: 15_000 });
    expect(await page.$eval('[data-testid="login-notice"]', (el) => el.textContent)).toContain('API key revoked.');
    expect(await page.evaluate(() => sessionStorage.getItem('rda.apiKey'))).toBeNull();
  });

  it('raised no script error and broke no Content-Security-Policy rule on any screen', () => {
    expect(pageErrors).toEqual([]);
  });
});
