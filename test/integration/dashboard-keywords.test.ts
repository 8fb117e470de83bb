/**
 * The dashboard's Keywords screens in the real headless Chromium (puppeteer-core) against the API
 * (startTestApp on PGlite, serving the built dashboard at /app), as a customer uses them: the list
 * of keyword subscriptions with the latest organic rank of each tracked ASIN, then one keyword with
 * the chart of its tracked ASINs' organic and sponsored positions over 30, 90 and 180 days and the
 * latest results page. Screenshots go where dashboard.test.ts writes its own
 * (`8-keywords.png`, `9-keyword.png`).
 *
 * The data is what six months of reads would have left, stored through the repositories: a
 * keyword subscription (core/subscriptions.ts `addSubscriptions`), one stored results page a day
 * for 180 days (core/search-observations.ts `storeSearchObservation`), and a monitoring run of the
 * subscription reserved, stored and delivered as the monitor does (`startMonitoringRun`,
 * `deliverKeywordRun`).
 */
import fs from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { deliverKeywordRun } from '../../core/keyword-monitoring.js';
import { startMonitoringRun } from '../../core/monitoring-runs.js';
import type { SearchItem, SearchResults } from '../../core/search.js';
import { storeSearchObservation } from '../../core/search-observations.js';
import { addSubscriptions } from '../../core/subscriptions.js';
import { resolveChromePath } from '../../worker/browser/chrome-path.js';
import { repoRoot } from '../support/env.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const SHOTS = path.join(repoRoot, process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/images/dashboard' : '.scratch/dashboard');
const DAY = 86_400_000;
const HOUR = 3_600_000;
const KEYWORD = 'USB C cable';
const TRACKED = ['B0TRACK001', 'B0TRACK002', 'B0TRACK003'] as const;
const [A, B, C] = TRACKED;

/** Where the tracked ASINs stand in one read: organic places (null: absent) and B's sponsored slot. */
interface Placing { a: number; b: number; c: number | null; bSponsored: boolean }

/** The placing of day `i` (0 the oldest of 180): A drifts between 2 and 8, B stays 10th, C is absent 3 days in 10. */
const placingOf = (i: number): Placing => ({ a: 2 + (i % 7), b: 10, c: i % 10 < 3 ? null : 13 + (i % 4), bSponsored: i % 2 === 0 });

/** A results page of 20 cards: a sponsored filler (and B when it holds a slot) first, then 18 organic cards. */
function resultsOf(at: Date, p: Placing): SearchResults {
  const organic: string[] = Array.from({ length: 18 }, (_, k) => `B0FILL${String(k + 1).padStart(4, '0')}`);
  organic[p.a - 1] = A;
  organic[p.b - 1] = B;
  if (p.c !== null) organic[p.c - 1] = C;
  const cards = [...(p.bSponsored ? [{ asin: B, sponsored: true }] : []), { asin: 'B0SPONS001', sponsored: true }, ...organic.map((asin) => ({ asin, sponsored: false }))];
  let organicSeen = 0;
  const items = cards.map(({ asin, sponsored }, k): SearchItem => ({
    position: k + 1, organic_position: sponsored ? null : ++organicSeen, sponsored, asin, url: `https://www.amazon.com/dp/${asin}`,
    title: asin === A ? 'Anker USB C to USB C Cable, 6 ft, 100W' : `USB C cable ${asin.slice(-4)}`, brand: null,
    price: { amount: asin === A ? 12.99 : 9.49, currency: 'USD' }, list_price: null, rating: 4.6, ratings_count: 1234, bought_past_month: 1000,
    badges: asin === A ? ['Best Seller'] : [], prime: true, coupon: null, delivery: null, image_url: null, variants_count: null,
  }));
  return {
    keyword: KEYWORD, marketplace: 'com', page: 1, url: 'https://www.amazon.com/s?k=USB+C+cable', observed_at: at.toISOString(),
    parser_version: 'seed', status: 'ok', total_results: 10000, results_text: '1-20 of over 10,000 results for "USB C cable"', items,
    quality: { version: 2, cards_seen: items.length, cards_read: items.length, missing: [] },
  };
}

describe('dashboard Keywords screens in headless Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let apiKey: string;
  const pageErrors: string[] = [];

  const seeText = (text: string, timeout = 15_000) => page.waitForFunction((t: string) => document.body.innerText.includes(t), { timeout }, text);
  const shot = async (name: string) => {
    await page.evaluate(() => document.fonts.ready);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) as `${string}.png`, fullPage: true });
  };
  const rangeText = () => page.$eval('[data-testid="rank-range"]', (el) => el.textContent ?? '');

  beforeAll(async () => {
    app = await startTestApp();
    const db = app.db;
    const account = await createAccount(db, { login: 'keywords', email: 'keywords@example.com', balance: 5 });
    apiKey = account.api_key;
    const [keyword, idle] = await addSubscriptions(db, account.id, [
      { kind: 'search', keyword: KEYWORD, marketplace: 'com', frequency: 'daily', pages: 1, trackAsins: [...TRACKED] },
      { kind: 'search', keyword: 'standing desk', marketplace: 'de', frequency: 'daily', pages: 2, trackAsins: [] },
      { kind: 'product', asin: 'B07CL39Z8Q', marketplace: 'com', frequency: 'daily' },
    ]);
    if (keyword?.kind !== 'created' || idle?.kind !== 'created') throw new Error('the keyword subscriptions were not created');
    const now = Date.now();
    // One read a day, an hour past each day boundary counted back from now: 30 of them in 30 days.
    for (let i = 0; i < 180; i++) await storeSearchObservation(db, resultsOf(new Date(now - (180 - i) * DAY + DAY - HOUR), placingOf(i)));
    // Older than any window: never drawn.
    await storeSearchObservation(db, resultsOf(new Date(now - 200 * DAY), placingOf(0)));
    // The subscription's latest run: A 3rd, B 10th with a sponsored slot, C absent.
    const runKey = `dashboard-keywords:${keyword.row.id}:1`;
    expect(await startMonitoringRun(db, { subscriptionId: keyword.row.id, runKey, reserve: true, pages: 1 })).toBe('reserved');
    const id = await storeSearchObservation(db, resultsOf(new Date(now - 10 * 60_000), { a: 3, b: 10, c: null, bSponsored: true }));
    await deliverKeywordRun(db, { subscriptionId: keyword.row.id, runKey, reservedPages: 1, searchObservationIds: [id] });

    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await puppeteer.launch({ executablePath: resolveChromePath(process.env.CHROME_PATH), headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
    });
    await page.setViewport({ width: 1280, height: 860 });
    await page.goto(`${app.url}/app`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('#api-key');
    await page.type('#api-key', apiKey);
    await page.keyboard.press('Enter');
    await seeText('Tasks by status');
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('lists the keyword subscriptions with each tracked ASIN\'s organic rank in the latest run', async () => {
    const [link] = await page.$$('xpath/.//nav//a[normalize-space(.)="Keywords"]');
    await link!.click();
    await page.waitForSelector('[data-testid="keyword-table"] tbody tr');
    const rows = await page.$$eval('[data-testid="keyword-table"] tbody tr', (trs) => trs.map((tr) => [...tr.children].slice(0, 5).map((td) => td.textContent)));
    // Only keyword subscriptions: the product subscription is not listed.
    expect(rows).toEqual([[KEYWORD, 'com', '1', 'daily', 'active'], ['standing desk', 'de', '2', 'daily', 'active']]);
    const tracked = await page.$$eval(`[data-keyword="${KEYWORD}"] [data-testid="tracked"] li`, (lis) => lis.map((li) => li.textContent));
    expect(tracked).toEqual([`${A}: #3`, `${B}: #10 · sponsored slot`, `${C}: absent`]);
    expect(await page.$eval('[data-keyword="standing desk"]', (tr) => tr.textContent)).toContain('none tracked');
    await shot('8-keywords');
  });

  it('opens a keyword: two series per tracked ASIN, 1 at the top, and a days switch that widens the range', async () => {
    const [open] = await page.$$(`xpath/.//a[normalize-space(.)="${KEYWORD}"]`);
    await open!.click();
    await page.waitForSelector('[data-testid="rank-chart"] canvas', { timeout: 30_000 });
    expect(await page.$eval('h1', (h) => h.textContent)).toBe(`Keyword “${KEYWORD}” (com)`);
    // 30 daily reads and the latest run.
    expect(await rangeText()).toMatch(/^31 reads in 30 days · /);
    // One rank history read per tracked ASIN at the standard plan's history rate.
    expect(await page.$eval('[data-testid="read-cost"]', (el) => el.textContent)).toContain('charged $0.0015');
    expect(await page.$eval('[data-testid="rank-chart"]', (el) => [el.getAttribute('data-series'), el.getAttribute('data-points')])).toEqual(['6', '31']);
    const legend = await page.$$eval('[data-testid="rank-chart"] .u-legend .u-series th', (ths) => ths.map((th) => th.textContent?.trim()).slice(1));
    expect(legend).toEqual(TRACKED.flatMap((asin) => [`${asin} organic`, `${asin} sponsored`]));
    // The figures under the chart: the newest read (A 3rd, B in the sponsored slot 1, C absent) and
    // the extremes. A read gives one place per ASIN, its first (rankHistory): B's organic card is
    // drawn on the days it had no sponsored slot above it.
    const figures = await page.$$eval('[data-testid="rank-chart"] + table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    expect(figures).toEqual([
      [`${A} organic`, '3', '2', '8'], [`${A} sponsored`, '—', '—', '—'],
      [`${B} organic`, '—', '10', '10'], [`${B} sponsored`, '1', '1', '1'],
      [`${C} organic`, '—', '13', '16'], [`${C} sponsored`, '—', '—', '—'],
    ]);
    // The y axis runs downwards from #1: position 1 at the top edge, the worst drawn (16) above the bottom.
    const [top, bottom] = await page.$eval('[data-testid="rank-chart"]', (el) => [Number((el as HTMLElement).dataset.yTop), Number((el as HTMLElement).dataset.yBottom)]);
    expect(top).toBe(1);
    expect(bottom).toBeGreaterThanOrEqual(16);
    expect(await page.$eval('button[aria-pressed="true"]', (el) => el.textContent)).toBe('30 days');
    const [d180] = await page.$$('xpath/.//button[normalize-space(.)="180 days"]');
    await d180!.click();
    await page.waitForFunction(() => document.querySelector('[data-testid="rank-range"]')?.textContent?.startsWith('181 reads in 180 days'), { timeout: 15_000 });
    expect(await page.$eval('[data-testid="rank-chart"]', (el) => el.getAttribute('data-points'))).toBe('181');
    const [d90] = await page.$$('xpath/.//button[normalize-space(.)="90 days"]');
    await d90!.click();
    await page.waitForFunction(() => document.querySelector('[data-testid="rank-range"]')?.textContent?.startsWith('91 reads in 90 days'), { timeout: 15_000 });
  });

  it('shows the latest results page with positions, sponsored slots and the tracked ASINs marked', async () => {
    await page.waitForSelector('[data-testid="result-table"] tbody tr');
    const rows = await page.$$eval('[data-testid="result-table"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    expect(rows).toHaveLength(20);
    expect(rows[0]!.slice(0, 4)).toEqual(['1', '—', 'sponsored', `${B} (tracked)`]);
    expect(rows[1]!.slice(0, 4)).toEqual(['2', '—', 'sponsored', 'B0SPONS001']);
    expect(rows[4]).toEqual(['5', '3', '', `${A} (tracked)`, 'Anker USB C to USB C Cable, 6 ft, 100W', '$12.99', '4.6★ (1234)', 'Best Seller']);
    expect(rows[11]!.slice(0, 4)).toEqual(['12', '10', '', `${B} (tracked)`]);
    expect(await page.$$eval('[data-testid="result-table"] tr.tracked', (trs) => trs.length)).toBe(3);
    expect(await page.$eval('[data-testid="results-line"]', (el) => el.textContent)).toContain('20 results shown');
    const [d180] = await page.$$('xpath/.//button[normalize-space(.)="180 days"]');
    await d180!.click();
    await page.waitForFunction(() => document.querySelector('[data-testid="rank-range"]')?.textContent?.startsWith('181 reads'), { timeout: 15_000 });
    await shot('9-keyword');
  });

  it('a keyword without tracked ASINs or reads says so', async () => {
    const [link] = await page.$$('xpath/.//nav//a[normalize-space(.)="Keywords"]');
    await link!.click();
    const open = await page.waitForSelector('xpath/.//a[normalize-space(.)="standing desk"]');
    await open!.click();
    await page.waitForSelector('[data-testid="no-results-stored"]');
    await seeText('This subscription tracks no ASIN');
    expect(await page.$$eval('[role="group"][aria-label="Results page"] button', (bs) => bs.map((b) => b.textContent))).toEqual(['Page 1', 'Page 2']);
  });

  it('answers subscription(id) for the caller\'s own subscriptions only, and filters subscriptions by kind', async () => {
    const other = await createAccount(app.db, { login: 'keywords-other', email: 'other@example.com', balance: 1 });
    const [theirs] = await addSubscriptions(app.db, other.id, [{ kind: 'search', keyword: KEYWORD, marketplace: 'com', frequency: 'daily', trackAsins: [A] }]);
    if (theirs?.kind !== 'created') throw new Error('the other account\'s subscription was not created');
    const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
      const response = await fetch(`${app.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body: JSON.stringify({ query, variables }) });
      return (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
    };
    const query = 'query($id: Int!) { subscription(id: $id) { keyword trackAsins latestRanks { asin } } }';
    expect(await graphql(query, { id: theirs.row.id })).toEqual({ data: { subscription: null } });
    const kinds = await graphql('{ products: subscriptions(kind: product) { totalCount edges { node { asin kind } } } keywords: subscriptions(kind: search) { totalCount } }');
    expect(kinds).toEqual({ data: { products: { totalCount: 1, edges: [{ node: { asin: 'B07CL39Z8Q', kind: 'product' } }] }, keywords: { totalCount: 2 } } });
  });

  it('raised no script error and broke no Content-Security-Policy rule', () => {
    expect(pageErrors).toEqual([]);
  });
});
