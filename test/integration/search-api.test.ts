/**
 * The search endpoints end to end on the API's side (search-page-contract.md "API"): search
 * task_post answered from stored reads of the last 60 minutes, charged per page exactly (ledger),
 * task_get and tasks_ready of search tasks, the queued path with its workflow start, no_results
 * charged for the one page read, Idempotency-Key replays charging once, rank_history values and
 * charge, GraphQL parity, and validation that charges nothing.
 *
 * The stored reads are labelled SearchResults of the saved search pages
 * (test/golden/search-labels/a), stored through the repository as a read would store them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { PLANS, searchTaskPrice } from '../../core/domain/pricing.js';
import { storeSearchObservation } from '../../core/search-observations.js';
import type { SearchResults } from '../../core/search.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { apiClient, type ApiClient } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';

const rates = PLANS.standard!.rates;
const LABELS = path.resolve(import.meta.dirname, '../golden/search-labels/a');

/** A labelled page as a SearchResults observed `minutesAgo` minutes ago, for `keyword` page `page`. */
function labelled(file: string, keyword: string, page: number, minutesAgo: number): SearchResults {
  const label = JSON.parse(fs.readFileSync(path.join(LABELS, file), 'utf8')) as Record<string, unknown>;
  const items = label.items as SearchResults['items'];
  return {
    keyword, marketplace: 'com', page, url: `https://www.amazon.com/s?k=${encodeURIComponent(keyword)}${page > 1 ? `&page=${page}` : ''}`,
    observed_at: new Date(Date.now() - minutesAgo * 60_000).toISOString(), parser_version: 'test',
    status: label.status as SearchResults['status'], total_results: label.total_results as number | null, results_text: label.results_text as string | null,
    items, quality: { version: 2, cards_seen: items.length, cards_read: items.length, missing: [] },
  };
}

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
}, 120_000);

afterAll(async () => {
  await app?.close();
});

async function customer(login: string, balance = 1): Promise<{ api: ApiClient; id: number; key: string }> {
  const account = await createAccount(app.db, { login, email: `${login}@example.com`, balance });
  return { api: apiClient(app.url, { login, key: account.api_key }), id: account.id, key: account.api_key };
}

describe('search task_post', () => {
  it('answers every page from reads of the last 60 minutes at once, charged twice the product price per page, and task_get returns the reads', async () => {
    const page1 = labelled('com_search_laptop_2024.json', 'Laptop  Stand', 1, 10);
    const page2 = labelled('com_search_phone_2024.json', 'laptop stand', 2, 20);
    const ids = [await storeSearchObservation(app.db, page1), await storeSearchObservation(app.db, page2)];
    const { api, id } = await customer('search-reuse');
    const res = await api.post('/v1/retail/search/task_post', [{ keyword: '  laptop   STAND ', marketplace: 'us', pages: 2, tag: 'kw' }]);
    expect(res.status).toBe(200);
    expect(res.body.status_code).toBe(20000);
    const [task] = res.body.tasks;
    expect(task.status_code).toBe(20100);
    expect(task.cost).toBe(2 * rates.search);
    expect(task.path).toEqual(['v1', 'retail', 'search', 'task_post']);
    expect(app.started).not.toContain(task.id);
    const money = await accountMoney(app.prisma, { id });
    expect(money.balance).toBeCloseTo(1 - 2 * 2 * rates.task_post, 9);
    expect(money.entries.filter((e) => e.kind !== 'topup')).toEqual([{ kind: 'charge', amount: -0.006, subscriptionId: null, taskId: task.id }]);

    const ready = await api.get('/v1/retail/search/tasks_ready');
    expect(ready.body.tasks[0].result).toEqual([expect.objectContaining({ id: task.id, keyword: 'laptop STAND', marketplace: 'com', tag: 'kw', status_code: 20000, endpoint: `/v1/retail/search/task_get/${task.id}` })]);
    const got = await api.get(`/v1/retail/search/task_get/${task.id}`);
    expect(got.body.tasks[0].status_code).toBe(20000);
    expect(got.body.tasks[0].path).toEqual(['v1', 'retail', 'search', 'task_get', task.id]);
    const result = got.body.tasks[0].result as SearchResults[];
    expect(result.map((r) => r.page)).toEqual([1, 2]);
    expect(result[0]!.items).toEqual(page1.items);
    expect(result[1]!.items).toEqual(page2.items);
    expect(result[0]!.total_results).toBe(page1.total_results);
    expect((await app.prisma.task.findUniqueOrThrow({ where: { id: task.id } })).searchObservationIds).toEqual(ids);
    // Collected: no longer ready; the product endpoints do not know it.
    expect((await api.get('/v1/retail/search/tasks_ready')).body.tasks[0].result).toEqual([]);
    expect((await api.get(`/v1/retail/product/task_get/${task.id}`)).status).toBe(404);
  });

  it('queues a task whose pages were not all read within 60 minutes and starts its workflow; priority 2 costs the high page rate', async () => {
    await storeSearchObservation(app.db, labelled('com_search_laptop_2024.json', 'usb hub', 1, 5));
    await storeSearchObservation(app.db, labelled('com_search_laptop_2024.json', 'usb hub', 2, 61));
    const { api, id } = await customer('search-queue');
    const res = await api.post('/v1/retail/search/task_post', [
      { keyword: 'usb hub', marketplace: 'com', pages: 2 },
      { keyword: 'usb hub', marketplace: 'com', pages: 3, priority: 2 },
    ]);
    const [a, b] = res.body.tasks;
    expect([a.status_code, b.status_code]).toEqual([20100, 20100]);
    expect([a.cost, b.cost]).toEqual([searchTaskPrice(rates, 1, 2), searchTaskPrice(rates, 2, 3)]);
    expect([a.cost, b.cost]).toEqual([0.006, 0.018]);
    expect(res.body.cost).toBeCloseTo(0.006 + 0.018, 9);
    expect(app.started).toEqual(expect.arrayContaining([a.id, b.id]));
    expect((await api.get(`/v1/retail/search/task_get/${a.id}`)).body.tasks[0].status_code).toBe(40401);
    const money = await accountMoney(app.prisma, { id });
    expect(money.balance).toBeCloseTo(1 - 0.024, 9);
    expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
  });

  it('a task whose page 1 said no_results within 60 minutes completes with that page alone, charged for one page', async () => {
    const none: SearchResults = { ...labelled('com_search_laptop_2024.json', 'qqqzzz nothing', 1, 3), status: 'no_results', items: [], total_results: null, results_text: null };
    const stored = await storeSearchObservation(app.db, none);
    const { api, id } = await customer('search-none');
    const res = await api.post('/v1/retail/search/task_post', [{ keyword: 'QQQZZZ nothing', marketplace: 'com', pages: 4 }]);
    const [task] = res.body.tasks;
    expect(task.cost).toBe(rates.search);
    const got = await api.get(`/v1/retail/search/task_get/${task.id}`);
    expect(got.body.tasks[0].status_code).toBe(20000);
    expect(got.body.tasks[0].result).toEqual([expect.objectContaining({ status: 'no_results', items: [], page: 1 })]);
    expect((await app.prisma.task.findUniqueOrThrow({ where: { id: task.id } })).searchObservationIds).toEqual([stored]);
    expect((await accountMoney(app.prisma, { id })).balance).toBeCloseTo(1 - rates.search, 9);
  });

  it('an Idempotency-Key replay answers the same tasks and charges once', async () => {
    const { id, key } = await customer('search-idem');
    const post = () => fetch(`${app.url}/v1/retail/search/task_post`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'search-key-1' },
      body: JSON.stringify([{ keyword: 'desk lamp', marketplace: 'de', pages: 2 }]),
    }).then(async (r) => ({ status: r.status, body: await r.json() as any }));
    const first = await post();
    const second = await post();
    expect(second.status).toBe(first.status);
    expect(second.body.tasks[0].id).toBe(first.body.tasks[0].id);
    expect(await app.prisma.task.count({ where: { accountId: id } })).toBe(1);
    expect((await accountMoney(app.prisma, { id })).balance).toBeCloseTo(1 - 2 * rates.search, 9);
  });

  it('charges in order while the balance lasts: 40200 for the rest, HTTP 402 when none can be paid', async () => {
    const { api, id } = await customer('search-poor', 0.01);
    const res = await api.post('/v1/retail/search/task_post', [
      { keyword: 'a', marketplace: 'com', pages: 3 }, { keyword: 'b', marketplace: 'com', pages: 1 }, { keyword: 'c', marketplace: 'com', pages: 1 },
    ]);
    expect(res.body.tasks.map((t: { status_code: number }) => t.status_code)).toEqual([20100, 40200, 40200]);
    expect((await accountMoney(app.prisma, { id })).balance).toBeCloseTo(0.001, 9);
    const refused = await api.post('/v1/retail/search/task_post', [{ keyword: 'd', marketplace: 'com', pages: 1 }]);
    expect(refused.status).toBe(402);
  });

  it('refuses bad elements with 40501 naming the field and charges nothing', async () => {
    const { api, id } = await customer('search-invalid');
    const cases: [Record<string, unknown>, string][] = [
      [{ keyword: 'a\u0000b', marketplace: 'com' }, 'keyword'],
      [{ keyword: 'x\uD800', marketplace: 'com' }, 'keyword'],
      [{ keyword: 'k'.repeat(201), marketplace: 'com' }, 'keyword'],
      [{ keyword: 'k'.repeat(10_000), marketplace: 'com' }, 'keyword'],
      [{ keyword: ' \u3000 \t', marketplace: 'com' }, 'keyword'],
      [{ keyword: 'tab\there', marketplace: 'com' }, 'keyword'],
      [{ keyword: '', marketplace: 'com' }, 'keyword'],
      [{ keyword: 'ok', marketplace: 'com', pages: 6 }, 'pages'],
      [{ keyword: 'ok', marketplace: 'com', pages: 0 }, 'pages'],
    ];
    for (const [element, field] of cases) {
      const res = await api.post('/v1/retail/search/task_post', [element]);
      expect(res.status, JSON.stringify(element).slice(0, 60)).toBe(400);
      expect(res.body.status_code).toBe(40501);
      expect(res.body.status_message).toContain(`\`${field}\``);
    }
    expect((await api.post('/v1/retail/search/task_post', [{ keyword: 'ok', marketplace: 'mars' }])).body.status_code).toBe(40502);
    expect((await api.post('/v1/retail/search/live', [{ keyword: 'ok', marketplace: 'com', pages: 2 }])).body.status_code).toBe(40501);
    expect((await api.post('/v1/retail/search/rank_history', [{ keyword: 'ok', marketplace: 'com', asin: 'B0CHX1W1XY', days: 366 }])).body.status_code).toBe(40501);
    expect((await api.post('/v1/retail/search/rank_history', [{ keyword: 'ok', marketplace: 'com', asin: 'nope' }])).body.status_code).toBe(40503);
    expect((await accountMoney(app.prisma, { id })).entries.filter((e) => e.kind !== 'topup')).toEqual([]);
  });
});

describe('search live', () => {
  it('answers from a read of the last 60 minutes at once, charged the search_live rate', async () => {
    const stored = labelled('com_search_atomic-habits_2025.json', 'atomic habits', 1, 30);
    await storeSearchObservation(app.db, stored);
    const { api, id } = await customer('search-live');
    const res = await api.post('/v1/retail/search/live', [{ keyword: 'Atomic Habits', marketplace: 'com' }]);
    expect(res.body.tasks[0].status_code).toBe(20000);
    expect(res.body.tasks[0].cost).toBe(rates.search_live);
    expect(res.body.tasks[0].result).toEqual([expect.objectContaining({ keyword: 'atomic habits', page: 1, items: stored.items })]);
    expect((await accountMoney(app.prisma, { id })).balance).toBeCloseTo(1 - rates.search_live, 9);
    expect((await api.post('/v1/retail/search/live', [{ keyword: 'a', marketplace: 'com' }, { keyword: 'b', marketplace: 'com' }])).status).toBe(400);
  });
});

describe('search rank_history', () => {
  it('answers where the ASIN stood in each stored read, newest first, null rows where absent, charged like product history', async () => {
    const older = labelled('com_search_laptop_2024.json', 'rank kw', 1, 3 * 24 * 60);
    const newer = labelled('com_search_laptop_2024.json', 'rank kw', 1, 24 * 60);
    const asin = older.items.find((i) => !i.sponsored)!.asin;
    const absent = { ...newer, items: newer.items.filter((i) => i.asin !== asin) };
    await storeSearchObservation(app.db, older);
    await storeSearchObservation(app.db, absent);
    const { api, id } = await customer('search-rank');
    const res = await api.post('/v1/retail/search/rank_history', [{ keyword: 'RANK  kw', marketplace: 'com', asin: asin.toLowerCase(), days: 7 }, { keyword: 'rank kw', marketplace: 'com', asin, days: 2 }]);
    expect(res.body.tasks.map((t: { status_code: number }) => t.status_code)).toEqual([20000, 20000]);
    const expected = older.items.find((i) => i.asin === asin)!;
    expect(res.body.tasks[0].result).toEqual([
      { observed_at: absent.observed_at, page: 1, position: null, organic_position: null, sponsored: null },
      { observed_at: older.observed_at, page: 1, position: expected.position, organic_position: expected.organic_position, sponsored: false },
    ]);
    expect(res.body.tasks[1].result).toHaveLength(1);
    expect(res.body.cost).toBeCloseTo(2 * rates.history, 9);
    expect((await accountMoney(app.prisma, { id })).balance).toBeCloseTo(1 - 2 * rates.history, 9);
  });
});

describe('GraphQL parity', () => {
  it('search, searchTasks, rankHistory and postSearchTasks answer what REST answers', async () => {
    const stored = labelled('com_search_clothes_2026.json', 'parity kw', 1, 15);
    await storeSearchObservation(app.db, stored);
    const { api, key, id } = await customer('search-gql');
    const gql = app.gql({ key });
    const latest = await gql(`{ search(keyword: "PARITY  kw", marketplace: "com") { keyword page status totalResults items { position organicPosition sponsored asin title price { amount currency } } } }`);
    expect(latest.body.errors).toBeUndefined();
    const rest = await api.post('/v1/retail/search/task_post', [{ keyword: 'parity kw', marketplace: 'com' }]);
    const restResult = (await api.get(`/v1/retail/search/task_get/${rest.body.tasks[0].id}`)).body.tasks[0].result[0] as SearchResults;
    const data = latest.body.data as { search: { keyword: string; totalResults: number; items: { position: number; organicPosition: number | null; sponsored: boolean; asin: string; title: string | null; price: unknown }[] } };
    expect(data.search.keyword).toBe(restResult.keyword);
    expect(data.search.totalResults).toBe(restResult.total_results);
    expect(data.search.items).toEqual(restResult.items.map((i) => ({ position: i.position, organicPosition: i.organic_position, sponsored: i.sponsored, asin: i.asin, title: i.title, price: i.price })));

    const posted = await gql(`mutation { postSearchTasks(tasks: [{ keyword: "parity kw", marketplace: "com", pages: 1 }], idempotencyKey: "gql-search-1") { cost results { statusCode cost task { id keyword status results { page items { asin } } } } } }`);
    expect(posted.body.errors).toBeUndefined();
    const payload = (posted.body.data as { postSearchTasks: { cost: number; results: { statusCode: number; cost: number; task: { id: string; keyword: string; status: string; results: { page: number; items: { asin: string }[] }[] } }[] } }).postSearchTasks;
    expect(payload.results[0]!.statusCode).toBe(20100);
    expect(payload.results[0]!.cost).toBe(rates.search);
    expect(payload.results[0]!.task.results[0]!.items.map((i) => i.asin)).toEqual(restResult.items.map((i) => i.asin));
    const again = await gql(`mutation { postSearchTasks(tasks: [{ keyword: "parity kw", marketplace: "com", pages: 1 }], idempotencyKey: "gql-search-1") { cost } }`);
    expect(again.body.errors).toBeUndefined();
    expect((await accountMoney(app.prisma, { id })).balance).toBeCloseTo(1 - 2 * rates.search, 9);

    const listed = await gql(`{ searchTasks(first: 10) { totalCount edges { node { id keyword cost statusCode } } } }`);
    const conn = (listed.body.data as { searchTasks: { totalCount: number; edges: { node: { id: string; cost: number; statusCode: number } }[] } }).searchTasks;
    expect(conn.totalCount).toBe(2);
    expect(conn.edges.map((e) => e.node.id).sort()).toEqual([rest.body.tasks[0].id, payload.results[0]!.task.id].sort());

    const asin = stored.items.find((i) => !i.sponsored)!.asin;
    const gqlRank = await gql(`{ rankHistory(keyword: "parity kw", marketplace: "com", asin: "${asin}", days: 3) { cost points { observedAt page position organicPosition sponsored } } }`);
    const restRank = await api.post('/v1/retail/search/rank_history', [{ keyword: 'parity kw', marketplace: 'com', asin, days: 3 }]);
    const rank = (gqlRank.body.data as { rankHistory: { cost: number; points: { observedAt: string; page: number; position: number | null; organicPosition: number | null; sponsored: boolean | null }[] } }).rankHistory;
    expect(rank.cost).toBe(restRank.body.tasks[0].cost);
    expect(rank.points).toEqual((restRank.body.tasks[0].result as { observed_at: string; page: number; position: number | null; organic_position: number | null; sponsored: boolean | null }[])
      .map((p) => ({ observedAt: p.observed_at, page: p.page, position: p.position, organicPosition: p.organic_position, sponsored: p.sponsored })));
    expect(rank.points.length).toBeGreaterThan(0);
  });
});
