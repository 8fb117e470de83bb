/**
 * The API's hot paths after their move to one statement each (authentication with rate limiting,
 * task_get, tasks_ready, task_post's charge and tasks (one statement per body), history's rows, the live cache hit, the usage
 * meter), over HTTP against buildApp on both
 * databases: the answers, charges, refunds, collection and rate limits a user sees
 * (api-spec.md "Product endpoints", "Task lifecycle", "Limits", "Errors").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { storeObservation } from '../../core/observations.js';
import { PLANS } from '../../core/pricing.js';
import { version1Fields, type Product } from '../../core/product.js';
import { completeTaskFromObservation } from '../../core/tasks.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { apiClient, type ApiClient } from '../support/http.js';

const rates = PLANS.standard!.rates;

/** A product shaped like a real page's, observed `minutesAgo` ago. */
function product(asin: string, minutesAgo = 1, status: Product['status'] = 'ok'): Product {
  const found = status !== 'not_found';
  return {
    asin, marketplace: 'com', url: `https://www.amazon.com/dp/${asin}`, observed_at: new Date(Date.now() - minutesAgo * 60_000).toISOString(), status,
    title: found ? `Title of ${asin}` : null, byline: found ? ['Brand'] : [], variant: found ? 'Large' : null,
    variants: found ? [{ name: 'Small', asin: 'B0VARIANT1' }, { name: 'Large', asin }] : [],
    price: found ? { amount: 12.27, currency: 'USD' } : null,
    bsr: found ? { rank: 409707, category: 'Clothing', subcategories: [{ rank: 15457, category: 'Tops' }] } : null,
    rating: found ? 4.3 : null, ratings_count: found ? 1287 : null, image_url: found ? 'https://images.example.com/a.jpg' : null,
    details: found ? { Brand: 'Brand', 'Item model number': 'X-1' } : {}, parser_version: 'test', ...version1Fields(),
  };
}

describe.each(['pglite', 'postgres'] as const)('hot paths on %s', (database) => {
  let app: TestApp;
  let seq = 0;

  beforeAll(async () => {
    app = await startTestApp({ database });
  });
  afterAll(async () => {
    await app?.close();
  });

  async function account(balance = 10): Promise<{ id: number; login: string; key: string; api: ApiClient }> {
    const login = `hot${++seq}`;
    const a = await createAccount(app.db, { login, email: `${login}@example.com`, balance });
    return { id: a.id, login, key: a.api_key, api: apiClient(app.url, { login, key: a.api_key }) };
  }

  async function ledger(accountId: number): Promise<{ kind: string; amount: number; balanceAfter: number; note: string | null }[]> {
    const rows = await app.prisma.ledgerEntry.findMany({ where: { accountId }, orderBy: { id: 'asc' } });
    return rows.map((r) => ({ kind: r.kind, amount: Number(r.amount), balanceAfter: Number(r.balanceAfter), note: r.note }));
  }

  describe('task_get and tasks_ready', () => {
    it('answers the stored Product; the first call after completion collects the task, later calls answer the same', async () => {
      const stored = product('B0HOT00001');
      await storeObservation(app.db, stored);
      const { api } = await account();
      const posted = await api.post('/v1/retail/product/task_post', [{ asin: 'B0HOT00001', marketplace: 'com', tag: 'x' }]);
      const id = posted.body.tasks[0].id as string;
      const ready = (await api.get('/v1/retail/product/tasks_ready')).body.tasks[0].result;
      const row = await app.prisma.task.findUniqueOrThrow({ where: { id } });
      expect(ready).toEqual([{
        id, asin: 'B0HOT00001', marketplace: 'com', tag: 'x', status_code: 20000,
        date_posted: row.createdAt.toISOString(), date_completed: row.completedAt!.toISOString(), endpoint: `/v1/retail/product/task_get/${id}`,
      }]);

      const first = await api.get(`/v1/retail/product/task_get/${id.toUpperCase()}`);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ status_code: 20000, tasks_count: 1, tasks_error: 0, cost: 0 });
      expect(first.body.tasks[0]).toMatchObject({ id, status_code: 20000, status_message: 'Ok.', result_count: 1, path: ['v1', 'retail', 'product', 'task_get', id] });
      expect(first.body.tasks[0].data).toEqual({ asin: 'B0HOT00001', marketplace: 'com', tag: 'x', api: 'retail', function: 'task_post' });
      expect(first.body.tasks[0].result).toEqual([stored]);
      expect((await api.get('/v1/retail/product/tasks_ready')).body.tasks[0].result).toEqual([]);

      const again = await api.get(`/v1/retail/product/task_get/${id}`);
      expect(again.body.tasks[0]).toEqual({ ...first.body.tasks[0], time: again.body.tasks[0].time });
    });

    it('a task still running answers 40401 and is not collected: it appears in tasks_ready once it completes', async () => {
      const { api } = await account();
      const posted = await api.post('/v1/retail/product/task_post', [{ asin: 'B0HOT00002', marketplace: 'com' }]);
      const id = posted.body.tasks[0].id as string;
      const running = await api.get(`/v1/retail/product/task_get/${id}`);
      expect(running.body.tasks[0]).toMatchObject({ id, status_code: 40401, result: null });
      const observationId = await storeObservation(app.db, product('B0HOT00002'));
      expect(await completeTaskFromObservation(app.db, id, observationId)).toBe(true);
      expect((await api.get('/v1/retail/product/tasks_ready')).body.tasks[0].result.map((r: { id: string }) => r.id)).toEqual([id]);
      expect((await api.get(`/v1/retail/product/task_get/${id}`)).body.tasks[0].status_code).toBe(20000);
      expect((await api.get('/v1/retail/product/tasks_ready')).body.tasks[0].result).toEqual([]);
    });

    it('another account\'s task, an expired task and an unknown id → 404 / 40400', async () => {
      await storeObservation(app.db, product('B0HOT00003'));
      const owner = await account();
      const id = (await owner.api.post('/v1/retail/product/task_post', [{ asin: 'B0HOT00003', marketplace: 'com' }])).body.tasks[0].id as string;
      const stranger = await account();
      for (const path of [`/v1/retail/product/task_get/${id}`, '/v1/retail/product/task_get/00000000-0000-4000-8000-000000000000', '/v1/retail/product/task_get/nope']) {
        const res = await stranger.api.get(path);
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ status_code: 40400, tasks: [] });
      }
      await app.prisma.task.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      expect((await owner.api.get(`/v1/retail/product/task_get/${id}`)).status).toBe(404);
      expect((await owner.api.get('/v1/retail/product/tasks_ready')).body.tasks[0].result).toEqual([]);
    });
  });

  describe('task_post (one statement per body)', () => {
    it('in order: reused from the window, refunded from a not_found one, queued, priority 2, and 40200 once the balance runs out', async () => {
      await storeObservation(app.db, product('B0HOT00020', 50));
      await storeObservation(app.db, product('B0HOT00021', 5, 'not_found'));
      await storeObservation(app.db, product('B0HOT00022', 90)); // older than the 60 min reuse window
      const balance = rates.task_post * 2.5 + rates.task_post_high; // the 40402 refund pays for a later task, not for the last
      const { id: accountId, api } = await account(balance);
      const res = await api.post('/v1/retail/product/task_post', [
        { asin: 'B0HOT00020', marketplace: 'com', tag: 'reused', postback_url: 'https://hooks.example.com/p' },
        { asin: 'B0HOT00021', marketplace: 'com' },
        { asin: 'B0HOT00022', marketplace: 'com', priority: 1 },
        { asin: 'B0HOT00023', marketplace: 'com', priority: 2, pingback_url: 'https://hooks.example.com/ping?id=$id' },
        { asin: 'B0HOT00024', marketplace: 'com' },
      ]);
      expect(res.status).toBe(200);
      const tasks = res.body.tasks as any[];
      expect(tasks.map((t) => [t.status_code, t.cost])).toEqual([[20100, rates.task_post], [20100, 0], [20100, rates.task_post], [20100, rates.task_post_high], [40200, 0]]);
      expect(res.body).toMatchObject({ tasks_count: 5, tasks_error: 1 });
      expect(res.body.cost).toBeCloseTo(rates.task_post * 2 + rates.task_post_high, 9);
      const rows = await app.prisma.task.findMany({ where: { accountId } });
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(rows).toHaveLength(4);
      expect(byId.get(tasks[0].id)).toMatchObject({ state: 'completed', statusCode: 20000, reused: true, tag: 'reused', postbackUrl: 'https://hooks.example.com/p', collectedAt: null });
      expect(byId.get(tasks[1].id)).toMatchObject({ state: 'failed', statusCode: 40402, reused: true });
      expect(Number(byId.get(tasks[1].id)!.cost)).toBe(0);
      expect(byId.get(tasks[2].id)).toMatchObject({ state: 'queued', statusCode: 20100, reused: false, priority: 1 });
      expect(byId.get(tasks[3].id)).toMatchObject({ state: 'queued', priority: 2, pingbackUrl: 'https://hooks.example.com/ping?id=$id' });
      expect(Number(byId.get(tasks[3].id)!.cost)).toBe(rates.task_post_high);
      expect(byId.get(tasks[0].id)!.data).toEqual({ asin: 'B0HOT00020', marketplace: 'com', tag: 'reused', postback_url: 'https://hooks.example.com/p', api: 'retail', function: 'task_post' });
      // Only the tasks that need a page read start a workflow; the finished ones start their webhooks.
      expect(app.started).toEqual(expect.arrayContaining([tasks[2].id, tasks[3].id]));
      expect(app.started).not.toContain(tasks[0].id);
      expect(app.started).not.toContain(tasks[1].id);
      expect(app.webhookStarts).toContainEqual({
        taskId: tasks[0].id, kinds: ['postback'], accountId, asin: 'B0HOT00020', marketplace: 'com', tag: 'reused',
        urls: { postback: 'https://hooks.example.com/p', pingback: null },
      });
      expect((await ledger(accountId)).slice(1).map((e) => [e.kind, e.amount, e.note])).toEqual([
        ['charge', -rates.task_post, 'task_post'], ['charge', -rates.task_post, 'task_post'], ['refund', rates.task_post, 'task 40402'],
        ['charge', -rates.task_post, 'task_post'], ['charge', -rates.task_post_high, 'task_post'],
      ]);
      const left = Number((await app.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).balance);
      expect(left).toBeCloseTo(balance - rates.task_post * 2 - rates.task_post_high, 9);
    });
  });

  describe('history (one prepared statement for the rows)', () => {
    it('newest first (ties newest id first), UTC days inclusive, offset and limit; other products never leak in', async () => {
      const at = (iso: string, asin = 'B0HOT00030', marketplace = 'com') =>
        ({ ...product(asin), marketplace, observed_at: iso, url: `https://www.amazon.${marketplace}/dp/${asin}` }) as Product;
      const stored = [
        at('2026-03-01T00:00:00.000Z'), at('2026-03-01T23:59:59.999Z'), at('2026-03-02T12:00:00.000Z'),
        { ...at('2026-03-02T12:00:00.000Z'), title: 'Stored second at the same instant' }, at('2026-03-03T00:00:00.000Z'),
      ];
      const ids: bigint[] = [];
      for (const p of stored) ids.push(await storeObservation(app.db, p));
      await storeObservation(app.db, at('2026-03-02T13:00:00.000Z', 'B0HOT00031'));
      await storeObservation(app.db, at('2026-03-02T13:00:00.000Z', 'B0HOT00030', 'de'));
      const { id: accountId, api } = await account(1);
      const rows = async (element: Record<string, unknown>) => {
        const res = await api.post('/v1/retail/product/history', [{ asin: 'B0HOT00030', marketplace: 'com', ...element }]);
        expect(res.body.tasks[0]).toMatchObject({ status_code: 20000, cost: rates.history });
        return res.body.tasks[0].result as Product[];
      };
      const all = await rows({});
      expect(all).toEqual([stored[4], stored[3], stored[2], stored[1], stored[0]]);
      // The two observations at the same instant: the one stored later (higher id) first.
      expect(ids[3]! > ids[2]!).toBe(true);
      expect((await rows({ date_from: '2026-03-01', date_to: '2026-03-01' })).map((p) => p.observed_at)).toEqual(['2026-03-01T23:59:59.999Z', '2026-03-01T00:00:00.000Z']);
      expect((await rows({ date_from: '2026-03-02' })).map((p) => p.observed_at)).toEqual(['2026-03-03T00:00:00.000Z', '2026-03-02T12:00:00.000Z', '2026-03-02T12:00:00.000Z']);
      expect((await rows({ date_to: '2026-03-02' })).length).toBe(4);
      expect(await rows({ offset: 1, limit: 2 })).toEqual([stored[3], stored[2]]);
      expect(await rows({ offset: 5 })).toEqual([]);
      expect(await rows({ date_from: '2026-04-01' })).toEqual([]);
      const charged = (await ledger(accountId)).filter((e) => e.kind === 'charge');
      expect(charged).toHaveLength(7);
      expect(charged.every((e) => e.amount === -rates.history && e.note === 'history')).toBe(true);
    });
  });

  describe('live', () => {
    it('a cache hit charges once, answers the stored Product and stores the task completed and collected', async () => {
      const stored = product('B0HOT00010', 5);
      await storeObservation(app.db, product('B0HOT00010', 50));
      await storeObservation(app.db, stored);
      const { id: accountId, api } = await account(1);
      const res = await api.post('/v1/retail/product/live', [{ asin: 'B0HOT00010', marketplace: 'com', max_age_minutes: 30 }]);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status_code: 20000, tasks_count: 1, tasks_error: 0, cost: rates.live });
      const task = res.body.tasks[0];
      expect(task).toMatchObject({ status_code: 20000, status_message: 'Ok.', cost: rates.live, result_count: 1, path: ['v1', 'retail', 'product', 'live'] });
      expect(task.data).toEqual({ asin: 'B0HOT00010', marketplace: 'com', max_age_minutes: 30, api: 'retail', function: 'live' });
      expect(task.result).toEqual([stored]);
      expect(app.started).not.toContain(task.id);
      const row = await app.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
      expect(row).toMatchObject({ endpoint: 'live', state: 'completed', statusCode: 20000, reused: false });
      expect(row.completedAt).toBeInstanceOf(Date);
      expect(row.collectedAt).toBeInstanceOf(Date);
      expect(Number(row.cost)).toBe(rates.live);
      expect(await ledger(accountId)).toEqual([
        { kind: 'topup', amount: 1, balanceAfter: 1, note: 'opening balance' },
        { kind: 'charge', amount: -rates.live, balanceAfter: 1 - rates.live, note: 'live' },
      ]);
    });

    it('an observation older than max_age_minutes, or max_age_minutes 0, reads the page (a workflow); the budget runs out: 50301, refunded', async () => {
      await storeObservation(app.db, product('B0HOT00011', 90));
      const { id: accountId, api } = await account(1);
      for (const maxAge of [60, 0]) {
        const res = await api.post('/v1/retail/product/live', [{ asin: 'B0HOT00011', marketplace: 'com', max_age_minutes: maxAge }]);
        expect(res.body.tasks[0]).toMatchObject({ status_code: 50301, cost: 0, result: null });
        expect(app.started).toContain(res.body.tasks[0].id);
        expect((await app.prisma.task.findUniqueOrThrow({ where: { id: res.body.tasks[0].id } })).collectedAt).toBeInstanceOf(Date);
      }
      expect(Number((await app.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).balance)).toBe(1);
      expect((await ledger(accountId)).map((e) => [e.kind, e.amount])).toEqual([
        ['topup', 1], ['charge', -rates.live], ['refund', rates.live], ['charge', -rates.live], ['refund', rates.live],
      ]);
    });

    it('a fresh not_found observation answers 40402 at once and refunds the charge', async () => {
      await storeObservation(app.db, product('B0HOT00012', 2, 'not_found'));
      const { id: accountId, api } = await account(1);
      const res = await api.post('/v1/retail/product/live', [{ asin: 'B0HOT00012', marketplace: 'com' }]);
      expect(res.body).toMatchObject({ status_code: 20000, cost: 0, tasks_error: 1 });
      expect(res.body.tasks[0]).toMatchObject({ status_code: 40402, cost: 0, result: null });
      expect(app.started).not.toContain(res.body.tasks[0].id);
      expect((await ledger(accountId)).slice(1)).toEqual([
        { kind: 'charge', amount: -rates.live, balanceAfter: 1 - rates.live, note: 'live' },
        { kind: 'refund', amount: rates.live, balanceAfter: 1, note: 'task 40402' },
      ]);
    });

    it('a balance below the price → 402 / 40200 and nothing is stored', async () => {
      await storeObservation(app.db, product('B0HOT00013'));
      const { id: accountId, api } = await account(rates.live / 2);
      const res = await api.post('/v1/retail/product/live', [{ asin: 'B0HOT00013', marketplace: 'com' }]);
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({ status_code: 40200, tasks: [] });
      expect(await app.prisma.task.count({ where: { accountId } })).toBe(0);
      expect((await ledger(accountId)).map((e) => e.kind)).toEqual(['topup']);
    });
  });

  describe('rate limits counted in the authentication statement', () => {
    it('a request refused for the requests limit does not count its tasks; the tasks limit then applies to the rest', async () => {
      const { id, api } = await account(10);
      await app.prisma.account.update({ where: { id }, data: { requestsPerMinute: 3, tasksPerMinute: 100 } });
      const thirty = Array.from({ length: 30 }, () => ({ asin: 'B0HOT00020', marketplace: 'com' }));
      for (let i = 0; i < 3; i++) expect((await api.post('/v1/retail/product/task_post', thirty)).status).toBe(200);
      const refused = await api.post('/v1/retail/product/task_post', thirty);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ status_code: 40202, cost: 0, tasks: [] });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Limits are read on every request: with more requests allowed, 10 more tasks fit (90 + 10 = 100), 1 more does not.
      await app.prisma.account.update({ where: { id }, data: { requestsPerMinute: 10 } });
      expect((await api.post('/v1/retail/product/task_post', thirty.slice(0, 10))).status).toBe(200);
      const overTasks = await api.post('/v1/retail/product/task_post', thirty.slice(0, 1));
      expect(overTasks.status).toBe(429);
      expect(overTasks.body.status_code).toBe(40202);
      expect(await app.prisma.task.count({ where: { accountId: id } })).toBe(100);
    });

    it('failed authentication counts nothing; GET requests count against the requests limit', async () => {
      const { id, login, key, api } = await account(10);
      await app.prisma.account.update({ where: { id }, data: { requestsPerMinute: 2 } });
      const wrongLogin = apiClient(app.url, { login: `${login}x`, key });
      for (let i = 0; i < 3; i++) expect((await wrongLogin.get('/v1/retail/product/tasks_ready')).status).toBe(401);
      expect((await api.get('/v1/retail/product/tasks_ready')).status).toBe(200);
      expect((await api.get('/v1/appendix/errors')).status).toBe(200);
      const refused = await api.get('/v1/retail/product/tasks_ready');
      expect(refused.status).toBe(429);
      expect(refused.body.status_code).toBe(40202);
    });
  });

  describe('usage meter', () => {
    it('usage answers every request metered before it in this process', async () => {
      const { api } = await account(10);
      await Promise.all(Array.from({ length: 5 }, () => api.get('/v1/retail/product/tasks_ready')));
      const usage = (await api.get('/v1/appendix/usage')).body.tasks[0].result[0];
      expect(usage.endpoints).toEqual([{ endpoint: 'tasks_ready', requests: 5, tasks: 5, cost: 0 }]);
      const me = (await api.get('/v1/appendix/user_data')).body.tasks[0].result[0];
      expect(me.usage.today).toEqual({ requests: 6, tasks: 6, cost: 0 });
    });
  });
});
