/**
 * The walk-through of docs/development.md as a test, over HTTP through the whole stack: real Temporal dev server,
 * real Chromium, the replay server standing in for the marketplaces, and the given database
 * (PGlite or PostgreSQL). Shared by walkthrough.pglite.test.ts and walkthrough.postgres.test.ts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import getPort from 'get-port';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Stack } from '../../scripts/stack.js';
import type { DelayedReplay } from '../support/delayed-replay.js';
import { repoRoot, sharedPagesDir } from '../support/env.js';
import { describeNeeding, savedPages, type Prerequisite } from '../support/prerequisites.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

/** Every field of a Product (api-spec.md "Product" and product-page-contract.md "Version 2 fields"), sorted. */
const PRODUCT_FIELDS = [
  'asin', 'marketplace', 'url', 'observed_at', 'status', 'title', 'byline', 'variant', 'variants', 'price', 'bsr', 'rating', 'ratings_count', 'image_url', 'details', 'parser_version',
  'list_price', 'subscribe_save_price', 'coupon', 'prime', 'buy_box', 'availability', 'delivery', 'feature_bullets', 'description', 'images', 'categories', 'rating_histogram', 'quality',
].sort();

/** Real saved pages of several marketplaces, with the file of their golden expectations. */
const REAL = [
  { asin: 'B07CL39Z8Q', marketplace: 'com', golden: 'com_B07CL39Z8Q' },
  { asin: '0062796984', marketplace: 'uk', golden: 'co.uk_0062796984' },
  { asin: '0062796984', marketplace: 'de', golden: 'de_0062796984' },
  { asin: 'B00004YS4O', marketplace: 'fr', golden: 'fr_B00004YS4O' },
  { asin: '4839927847', marketplace: 'jp', golden: 'co.jp_4839927847_2008' },
  { asin: 'B0D6NN6TM7', marketplace: 'br', golden: 'com.br_B0D6NN6TM7' },
  { asin: 'B0CY5QW186', marketplace: 'in', golden: 'in_B0CY5QW186' },
];
const UNKNOWN = { asin: 'ZZZZZZZZZ1', marketplace: 'com' };
const CAPTCHA = { asin: 'B0DB54VLNC', marketplace: 'in' };
const SLOW_TASK_PATH = '/www.amazon.fr/dp/B00004YS4O';
const SLOW_LIVE_PATH = '/www.amazon.de/dp/B00004YS4O';
const TASK_PRICE = 0.0015;

export function defineWalkthrough(label: string, database: () => Promise<{ url?: string; drop(): Promise<void> }>, needs: Prerequisite[] = []) {
  describeNeeding([savedPages, ...needs], `walk-through on ${label}`, () => {
    let running: TestStack;
    let stack: Stack;
    let replay: DelayedReplay;
    let dataDir: string;
    let api: ApiClient;
    let apiKey: string;
    const ids = new Map<string, string>();
    const balance = async () => Number((await stack.db.prisma.account.findUniqueOrThrow({ where: { login: 'walker' } })).balance);

    beforeAll(async () => {
      running = await startTestStack({
        pages: sharedPagesDir,
        delays: { [SLOW_TASK_PATH]: 4_000, [SLOW_LIVE_PATH]: 30_000 },
        database,
        env: { METRICS_LISTEN: '127.0.0.1:0', LIVE_BUDGET: '12s', SOURCE_READ_ATTEMPTS: '3' },
        stack: { temporalUiPort: await getPort() },
      });
      ({ stack, replay, dataDir } = running);
      const dbUrl = stack.config.DATABASE_URL;
      // Step 1 of the walk-through: the operator creates the account with the admin CLI.
      const { stdout: out } = await promisify(execFile)(path.join(repoRoot, 'node_modules/.bin/tsx'), ['api/admin/cli.ts', 'account', 'create', '--login', 'walker', '--email', 'walker@example.com', '--balance', '1'], {
        cwd: repoRoot, encoding: 'utf8', env: { PATH: process.env.PATH, DATA_DIR: dataDir, ...(dbUrl ? { DATABASE_URL: dbUrl } : {}) },
      });
      const created = JSON.parse(out) as { id: number; login: string; api_key: string };
      expect(created.login).toBe('walker');
      expect(created.api_key).toMatch(/^rda_live_[A-Za-z0-9_-]{40}$/);
      apiKey = created.api_key;
      api = apiClient(stack.api.url, { login: 'walker', key: apiKey });
    });

    afterAll(async () => {
      await running?.stop();
    });

    it('task_post accepts real ASINs of several marketplaces, an unknown ASIN and a captcha page, charging each', async () => {
      const body = [...REAL, UNKNOWN, CAPTCHA].map((t, i) => ({ ...t, tag: `walk-${i}` }));
      const res = await api.post('/v1/retail/product/task_post', body);
      expect(res.status).toBe(200);
      expect(res.body.status_code).toBe(20000);
      expect(res.body.tasks_count).toBe(body.length);
      expect(res.body.tasks_error).toBe(0);
      expect(res.body.cost).toBeCloseTo(TASK_PRICE * body.length, 9);
      for (const [i, task] of (res.body.tasks as any[]).entries()) {
        expect(task.status_code).toBe(20100);
        expect(task.data).toMatchObject({ ...body[i], api: 'retail', function: 'task_post' });
        expect(task.id.slice(0, 8)).toMatch(/^\d{8}$/);
        ids.set(`${body[i]!.marketplace}:${body[i]!.asin}`, task.id);
      }
      expect(await balance()).toBeCloseTo(1 - TASK_PRICE * body.length, 9);
    });

    it('task_get before completion answers task-level 40401', async () => {
      const res = await api.get(`/v1/retail/product/task_get/${ids.get('fr:B00004YS4O')}`);
      expect(res.status).toBe(200);
      expect(res.body.tasks[0].status_code).toBe(40401);
      expect(res.body.tasks[0].result).toBeNull();
    });

    it('tasks_ready lists every finished task, oldest first', async () => {
      const ready = await waitFor(async () => {
        const res = await api.get('/v1/retail/product/tasks_ready');
        const rows = res.body.tasks[0].result as any[];
        return rows.length === ids.size ? rows : null;
      }, 90_000);
      expect(new Set(ready.map((r) => r.id))).toEqual(new Set(ids.values()));
      const completed = ready.map((r) => Date.parse(r.date_completed));
      expect(completed).toEqual([...completed].sort((a, b) => a - b));
    });

    it('task_get returns parsed Products that match the golden pages', async () => {
      for (const page of REAL) {
        const res = await api.get(`/v1/retail/product/task_get/${ids.get(`${page.marketplace}:${page.asin}`)}`);
        const task = res.body.tasks[0];
        expect(task.status_code, page.golden).toBe(20000);
        const product = task.result[0];
        const golden = JSON.parse(fs.readFileSync(path.join(sharedPagesDir, `${page.golden}.expected.json`), 'utf8'));
        expect(product.asin).toBe(page.asin);
        expect(product.marketplace).toBe(page.marketplace);
        expect(product.url).toMatch(new RegExp(`^https://www\\.amazon\\.[a-z.]+/dp/${page.asin}$`));
        expect(product.title).toBe(golden.title);
        expect(product.status).toBe(golden.status);
        expect(product.price).toEqual(golden.price);
        expect(product.bsr).toEqual(golden.bsr);
        expect(Object.keys(product).sort()).toEqual(PRODUCT_FIELDS);
      }
    });

    it('an unknown ASIN answers 40402 and a captcha page 50301 after retries; neither is charged', async () => {
      const unknown = await api.get(`/v1/retail/product/task_get/${ids.get(`${UNKNOWN.marketplace}:${UNKNOWN.asin}`)}`);
      expect(unknown.body.tasks[0]).toMatchObject({ status_code: 40402, cost: 0, result: null });
      const captcha = await api.get(`/v1/retail/product/task_get/${ids.get(`${CAPTCHA.marketplace}:${CAPTCHA.asin}`)}`);
      expect(captcha.body.tasks[0]).toMatchObject({ status_code: 50301, cost: 0, result: null });
      expect(replay.hits(`/www.amazon.in/dp/${CAPTCHA.asin}`)).toBe(3);
      expect(await balance()).toBeCloseTo(1 - TASK_PRICE * REAL.length, 9);
    });

    it('collected tasks leave tasks_ready', async () => {
      const res = await api.get('/v1/retail/product/tasks_ready');
      expect(res.body.tasks[0].result).toEqual([]);
    });

    it('a second task_post of the same product within the reuse window completes at once without a page read', async () => {
      const path = '/www.amazon.com/dp/B07CL39Z8Q';
      const before = replay.hits(path);
      const post = await api.post('/v1/retail/product/task_post', [{ asin: 'b07cl39z8q', marketplace: 'US' }]);
      const id = post.body.tasks[0].id;
      const got = await api.get(`/v1/retail/product/task_get/${id}`);
      expect(got.body.tasks[0].status_code).toBe(20000);
      expect(got.body.tasks[0].result[0].asin).toBe('B07CL39Z8Q');
      expect(replay.hits(path)).toBe(before);
    });

    it('live reads a fresh page with max_age_minutes 0, and answers from a stored observation otherwise', async () => {
      const path = '/www.amazon.co.uk/dp/0062796984';
      const before = replay.hits(path);
      const fresh = await api.post('/v1/retail/product/live', [{ asin: '0062796984', marketplace: 'gb', max_age_minutes: 0 }]);
      expect(fresh.body.tasks[0].status_code).toBe(20000);
      expect(fresh.body.cost).toBeGreaterThan(0);
      expect(replay.hits(path)).toBe(before + 1);
      const cached = await api.post('/v1/retail/product/live', [{ asin: '0062796984', marketplace: 'uk' }]);
      expect(cached.body.tasks[0].status_code).toBe(20000);
      expect(cached.body.tasks[0].result[0].observed_at).toBe(fresh.body.tasks[0].result[0].observed_at);
      expect(replay.hits(path)).toBe(before + 1);
    });

    it('live answers 50301 and charges nothing when the read outlasts the budget', async () => {
      const start = await balance();
      const t0 = Date.now();
      const res = await api.post('/v1/retail/product/live', [{ asin: 'B00004YS4O', marketplace: 'de', max_age_minutes: 0 }]);
      // Answered at the budget (12 s), long before the page (30 s); the budget leaves room for a loaded CI machine.
      expect(Date.now() - t0).toBeLessThan(20_000);
      expect(res.body.tasks[0]).toMatchObject({ status_code: 50301, cost: 0, result: null });
      expect(res.body.cost).toBe(0);
      expect(await balance()).toBeCloseTo(start, 9);
    });

    it('history returns the stored observations of a product newest first', async () => {
      const res = await api.post('/v1/retail/product/history', [{ asin: '0062796984', marketplace: 'uk' }]);
      const rows = res.body.tasks[0].result as any[];
      expect(rows.length).toBe(2);
      expect(Date.parse(rows[0].observed_at)).toBeGreaterThan(Date.parse(rows[1].observed_at));
    });

    it('the ledger sums to the balance', async () => {
      const { balance, ledgerSum } = await accountMoney(stack.db.prisma, { login: 'walker' });
      expect(ledgerSum).toBeCloseTo(balance, 9);
    });

    it('/metrics (on METRICS_LISTEN) counts source reads by marketplace and outcome, and their attempts by route', async () => {
      const text = await (await fetch(`${stack.api.metricsUrl}/metrics`)).text();
      // The captcha task's read counts once (blocked); each of its SOURCE_ATTEMPTS attempts counts per route.
      expect(text).toMatch(/retail_source_reads_total\{marketplace="in",outcome="blocked"\} 1/);
      expect(text).toMatch(/retail_source_proxy_reads_total\{proxy="direct",marketplace="in",outcome="blocked"\} 3/);
      expect(text).toMatch(/retail_source_reads_total\{marketplace="com",outcome="not_found"\} 1/);
      expect(text).toMatch(/retail_source_reads_total\{marketplace="de",outcome="ok"\} \d+/);
    });

    it('the Temporal Web UI lists the walk-through workflows', async () => {
      const res = await fetch(`${stack.temporalUiUrl}/api/v1/namespaces/default/workflows`);
      const listed = (await res.json()) as { executions: { execution: { workflowId: string }; type: { name: string } }[] };
      const byId = new Map(listed.executions.map((e) => [e.execution.workflowId, e.type.name]));
      for (const id of ids.values()) expect(byId.get(id)).toBe('productTask');
    });
  });
}
