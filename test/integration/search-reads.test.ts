/**
 * Search reads through the whole stack (search-page-contract.md "Page kinds" and "API"): the
 * search task's workflow reads each results page through the browser grid from the replay server
 * (the saved search pages of ../shared/fixtures/search standing in for the marketplace), parses and
 * stores it; the customer sees the result list the page shows, charged per page read. A "No
 * results" page is an answer, charged for the page read; a robot check is never an answer: the task
 * fails with 50301 and is refunded whole. Real Temporal dev server (search attributes read back
 * through its client), real Chromium, PGlite.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { PLANS } from '../../core/domain/pricing.js';
import { SEARCH_ATTRIBUTES } from '../../core/domain/operator-view.js';
import type { SearchResults } from '../../core/search.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { describeNeeding, savedSearchPages } from '../support/prerequisites.js';
import { repoRoot, sharedSearchPagesDir } from '../support/env.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

const searchPrice = PLANS.standard!.rates.search;

interface GoldenPage {
  items: { asin: string; position: number; organic_position: number | null; sponsored: boolean }[];
  total_results: number | null;
}
const golden = (name: string): GoldenPage =>
  JSON.parse(fs.readFileSync(path.join(repoRoot, 'test/golden/search', `${name}.json`), 'utf8')) as GoldenPage;
const ranks = (items: GoldenPage['items']) => items.map(({ asin, position, organic_position, sponsored }) => ({ asin, position, organic_position, sponsored }));

/** A replay folder: two saved pages as pages 1 and 2 of "laptop", and a robot check at a search path. */
function replayFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-search-replay-'));
  fs.symlinkSync(path.join(sharedSearchPagesDir, 'com_search_laptop_2024.html'), path.join(dir, 'laptop-1.html'));
  fs.symlinkSync(path.join(sharedSearchPagesDir, 'com_search_phone_2024.html'), path.join(dir, 'laptop-2.html'));
  fs.copyFileSync(path.join(repoRoot, 'test/fixtures/html/captcha.html'), path.join(dir, 'robot.html'));
  fs.writeFileSync(path.join(dir, 'MANIFEST.tsv'), [
    'file\tmarketplace\tasin\tkind\tkeyword\tpage',
    'laptop-1.html\tcom\t\tsearch\tlaptop\t1',
    'laptop-2.html\tcom\t\tsearch\tlaptop\t2',
    'robot.html\tcom\t\tcaptcha\tblocked keyword\t1',
  ].join('\n'));
  return dir;
}

describeNeeding([savedSearchPages], 'search reads through the browser grid', () => {
  let running: TestStack;
  let dir: string;

  beforeAll(async () => {
    dir = replayFolder();
    running = await startTestStack({ pages: dir, env: { REUSE_WINDOW: '0s', SOURCE_READ_ATTEMPTS: '2' } });
  }, 180_000);

  afterAll(async () => {
    await running?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function customer(login: string, balance = 1): Promise<{ api: ApiClient; id: number }> {
    const account = await createAccount(running.stack.db, { login, email: `${login}@example.com`, balance });
    return { api: apiClient(running.stack.api.url, { login, key: account.api_key }), id: account.id };
  }

  /** Posts one search task and waits for task_get to answer it finished. */
  async function postAndWait(api: ApiClient, element: Record<string, unknown>): Promise<{ id: string; task: Record<string, unknown> }> {
    const posted = await api.post('/v1/retail/search/task_post', [element]);
    expect(posted.status).toBe(200);
    const id = posted.body.tasks[0].id as string;
    const task = await waitFor(async () => {
      const got = await api.get(`/v1/retail/search/task_get/${id}`);
      const t = got.body.tasks?.[0] as Record<string, unknown> | undefined;
      return t && t.status_code !== 20100 && t.status_code !== 40401 ? t : undefined;
    }, 120_000, 250);
    return { id, task };
  }

  it('a two-page task reads both pages through the browser: the ranks the pages show, charged twice the search price', { timeout: 180_000 }, async () => {
    const { api, id: accountId } = await customer('search-e2e');
    const posted = await api.post('/v1/retail/search/task_post', [{ keyword: '  Laptop ', marketplace: 'com', pages: 2, tag: 'e2e' }]);
    const id = posted.body.tasks[0].id as string;
    // Finished, uncollected: tasks_ready lists it until task_get collects it.
    await waitFor(async () => (await api.get('/v1/retail/search/tasks_ready')).body.tasks[0].result.some((t: { id: string }) => t.id === id), 120_000, 250);
    const task = (await api.get(`/v1/retail/search/task_get/${id}`)).body.tasks[0] as Record<string, unknown>;
    expect(task.status_code).toBe(20000);
    const result = task.result as SearchResults[];
    expect(result.map((r) => [r.keyword, r.page, r.status, r.url])).toEqual([
      ['Laptop', 1, 'ok', 'https://www.amazon.com/s?k=Laptop'],
      ['Laptop', 2, 'ok', 'https://www.amazon.com/s?k=Laptop&page=2'],
    ]);
    expect(ranks(result[0]!.items)).toEqual(ranks(golden('com_search_laptop_2024').items));
    expect(ranks(result[1]!.items)).toEqual(ranks(golden('com_search_phone_2024').items));
    expect(result[0]!.total_results).toBe(golden('com_search_laptop_2024').total_results);

    const money = await accountMoney(running.stack.db.prisma, { id: accountId });
    expect(money.balance).toBeCloseTo(1 - 2 * searchPrice, 9);
    expect(money.entries.filter((e) => e.kind !== 'topup').map((e) => [e.kind, e.amount, e.taskId])).toEqual([['charge', -2 * searchPrice, id]]);

    expect((await api.get('/v1/retail/search/tasks_ready')).body.tasks[0].result.map((t: { id: string }) => t.id)).not.toContain(id);

    // The operators' view: the workflow carries the keyword, marketplace, account and result code.
    const described = await running.client.workflow.getHandle(id).describe();
    const attributes = Object.fromEntries(described.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value]));
    expect(attributes).toMatchObject({ Keyword: 'Laptop', Marketplace: 'com', AccountId: accountId });
    await waitFor(async () => (await running.client.workflow.getHandle(id).describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTES.ResultCode) === 20000, 20_000, 100);

    // The stored reads answer rank history: the first organic ASIN of page 1 at organic position 1.
    const first = golden('com_search_laptop_2024').items.find((i) => !i.sponsored)!;
    const history = await api.post('/v1/retail/search/rank_history', [{ keyword: 'laptop', marketplace: 'com', asin: first.asin, days: 1 }]);
    expect(history.status).toBe(200);
    expect(history.body.tasks[0].result[0]).toMatchObject({ page: 1, position: first.position, organic_position: 1, sponsored: false });
  });

  it('a keyword the marketplace has no results for is an answer: 20000, no_results, charged the one page read', { timeout: 120_000 }, async () => {
    const { api, id: accountId } = await customer('search-none');
    const { task } = await postAndWait(api, { keyword: 'zzqx nothing here', marketplace: 'com', pages: 3 });
    expect(task.status_code).toBe(20000);
    const result = task.result as SearchResults[];
    expect(result.map((r) => [r.page, r.status, r.items.length])).toEqual([[1, 'no_results', 0]]);
    expect((await accountMoney(running.stack.db.prisma, { id: accountId })).balance).toBeCloseTo(1 - searchPrice, 9);
  });

  it('a robot check is never an answer: the task fails with 50301 and is refunded whole', { timeout: 180_000 }, async () => {
    const { api, id: accountId } = await customer('search-robot');
    const { id, task } = await postAndWait(api, { keyword: 'blocked keyword', marketplace: 'com', pages: 2 });
    expect(task.status_code).toBe(50301);
    expect(task.result ?? null).toBeNull();
    const money = await accountMoney(running.stack.db.prisma, { id: accountId });
    expect(money.balance).toBeCloseTo(1, 9);
    expect(money.entries.filter((e) => e.taskId === id).reduce((sum, e) => sum + e.amount, 0)).toBeCloseTo(0, 9);
    const hits = JSON.parse((await fetch(`${running.replay.url}/_replay/hits`).then((r) => r.text()))) as Record<string, number>;
    expect(hits['/www.amazon.com/s?k=blocked+keyword'] ?? hits['/www.amazon.com/s?k=blocked%20keyword']).toBeGreaterThanOrEqual(2);
  });

  it('a live search answers with the page read', { timeout: 120_000 }, async () => {
    const { api } = await customer('search-live');
    const res = await api.post('/v1/retail/search/live', [{ keyword: 'laptop', marketplace: 'com' }]);
    expect(res.status).toBe(200);
    expect(res.body.tasks[0].status_code).toBe(20000);
    expect(ranks(res.body.tasks[0].result[0].items)).toEqual(ranks(golden('com_search_laptop_2024').items));
  });
});
