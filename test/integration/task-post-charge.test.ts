/**
 * task_post charges a body's valid elements in order in one statement (api-spec.md "Charging",
 * "Errors"; core/tasks.ts `createChargedTasks`), over HTTP on PGlite and on the real PostgreSQL:
 * - an element is charged when the balance left after the elements charged before it covers its
 *   price (priority 2 costs more), so a later cheaper element can be charged after an expensive
 *   one answered 40200; the balance can reach exactly 0; every charge has its ledger entry with the
 *   running balance;
 * - elements finished from the reuse window (completed, or 40402 refunded) mixed with elements
 *   that need a page read, in one body;
 * - concurrent bodies for one account, through two API processes' pools: never overdrawn, nothing
 *   charged twice, the ledger's running balance unbroken and its sum equal to the balance.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { storeObservation } from '../../core/observations.js';
import { PLANS } from '../../core/pricing.js';
import { version1Fields, type Product } from '../../core/product.js';
import { accountMoney } from '../support/ledger.js';
import { apiClient, type ApiClient } from '../support/http.js';
import { describeNeeding, postgres } from '../support/prerequisites.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const rates = PLANS.standard!.rates;
const postgresPrerequisite = await postgres();

/** A product observed `minutesAgo` ago. */
function product(asin: string, minutesAgo: number, status: Product['status'] = 'ok'): Product {
  const found = status !== 'not_found';
  return {
    asin, marketplace: 'com', url: `https://www.amazon.com/dp/${asin}`, observed_at: new Date(Date.now() - minutesAgo * 60_000).toISOString(), status,
    title: found ? `Title of ${asin}` : null, byline: [], variant: null, variants: [], price: null, bsr: null, rating: null, ratings_count: null,
    image_url: null, details: {}, parser_version: 'test', ...version1Fields(),
  };
}

/** A fresh ASIN (never observed) per call. */
let asinSeq = 0;
const freshAsin = () => `B0CHG${String(++asinSeq).padStart(5, '0')}`;

for (const database of ['pglite', 'postgres'] as const) {
  describeNeeding(database === 'postgres' ? [postgresPrerequisite] : [], `task_post charging on ${database}`, () => {
    let app: TestApp;
    let second: { url: string };
    let seq = 0;

    beforeAll(async () => {
      app = await startTestApp({ database, env: { REUSE_WINDOW: '60m' } });
      // Another API process on the same database, with a pool of its own.
      second = await app.another();
    });
    afterAll(async () => {
      await app?.close();
    });

    async function account(balance: number): Promise<{ id: number; login: string; key: string; api: ApiClient }> {
      const login = `charge${database}${++seq}`;
      const a = await createAccount(app.db, { login, email: `${login}@example.com`, balance });
      return { id: a.id, login, key: a.api_key, api: apiClient(app.url, { login, key: a.api_key }) };
    }

    /** The account's ledger after its top-up, oldest first. */
    async function charges(accountId: number) {
      const rows = await app.prisma.ledgerEntry.findMany({ where: { accountId }, orderBy: { id: 'asc' } });
      return rows.slice(1).map((r) => ({ kind: r.kind, amount: Number(r.amount), balanceAfter: Number(r.balanceAfter), taskId: r.taskId }));
    }

    const balanceOf = async (id: number) => Number((await app.prisma.account.findUniqueOrThrow({ where: { id } })).balance);

    it('charges in order: a priority 2 element the balance left no longer covers answers 40200, a later priority 1 element it covers is charged; invalid elements answer in place', async () => {
      const balance = rates.task_post_high + rates.task_post + 0.0005;
      const { id, api } = await account(balance);
      const [a, c] = [freshAsin(), freshAsin()];
      const res = await api.post('/v1/retail/product/task_post', [
        { asin: a, marketplace: 'com', priority: 2, tag: 'a' },
        { asin: 'not-an-asin', marketplace: 'com' },
        { asin: freshAsin(), marketplace: 'com', priority: 2 },
        { asin: c, marketplace: 'com', priority: 1, tag: 'c' },
        { asin: freshAsin(), marketplace: 'com', priority: 1 },
        { asin: freshAsin(), marketplace: 'com', priority: 2 },
      ]);
      expect(res.status).toBe(200);
      const tasks = res.body.tasks as any[];
      expect(tasks.map((t) => [t.status_code, t.cost])).toEqual([
        [20100, rates.task_post_high], [40503, 0], [40200, 0], [20100, rates.task_post], [40200, 0], [40200, 0],
      ]);
      expect(res.body).toMatchObject({ tasks_count: 6, tasks_error: 4 });
      expect(res.body.cost).toBeCloseTo(rates.task_post_high + rates.task_post, 9);
      const rows = await app.prisma.task.findMany({ where: { accountId: id }, orderBy: { createdAt: 'asc' } });
      expect(rows.map((r) => [r.id, r.asin, r.priority, r.state, Number(r.cost)]).sort()).toEqual([
        [tasks[0].id, a, 2, 'queued', rates.task_post_high], [tasks[3].id, c, 1, 'queued', rates.task_post],
      ].sort());
      expect(app.started).toEqual(expect.arrayContaining([tasks[0].id, tasks[3].id]));
      for (const refused of [tasks[2], tasks[4], tasks[5]]) expect(app.started).not.toContain(refused.id);
      const left = balance - rates.task_post_high;
      expect(await charges(id)).toEqual([
        { kind: 'charge', amount: -rates.task_post_high, balanceAfter: expect.closeTo(left, 9), taskId: tasks[0].id },
        { kind: 'charge', amount: -rates.task_post, balanceAfter: expect.closeTo(left - rates.task_post, 9), taskId: tasks[3].id },
      ]);
      expect(await balanceOf(id)).toBeCloseTo(0.0005, 9);
    });

    it('the balance reaches exactly 0; the next body then answers HTTP 402 / 40200 and changes nothing', async () => {
      const { id, api } = await account(2 * rates.task_post + rates.task_post_high);
      const res = await api.post('/v1/retail/product/task_post', [
        { asin: freshAsin(), marketplace: 'com' }, { asin: freshAsin(), marketplace: 'com', priority: 2 },
        { asin: freshAsin(), marketplace: 'com' }, { asin: freshAsin(), marketplace: 'com' },
      ]);
      expect(res.body.tasks.map((t: any) => t.status_code)).toEqual([20100, 20100, 20100, 40200]);
      expect(await balanceOf(id)).toBe(0);
      expect((await charges(id)).map((e) => e.balanceAfter).at(-1)).toBe(0);
      const broke = await api.post('/v1/retail/product/task_post', [{ asin: freshAsin(), marketplace: 'com' }]);
      expect(broke.status).toBe(402);
      expect(broke.body.status_code).toBe(40200);
      expect(await balanceOf(id)).toBe(0);
      expect(await charges(id)).toHaveLength(3);
    });

    it('a body of 100 elements (the limit) is charged in order until the balance runs out, each entry with the running balance', async () => {
      const { id, api } = await account(37 * rates.task_post + 0.0001);
      const body = Array.from({ length: 100 }, () => ({ asin: freshAsin(), marketplace: 'com' }));
      const res = await api.post('/v1/retail/product/task_post', body);
      expect(res.status).toBe(200);
      const codes = res.body.tasks.map((t: any) => t.status_code);
      expect(codes).toEqual([...Array(37).fill(20100), ...Array(63).fill(40200)]);
      expect(res.body.tasks.map((t: any) => t.data.asin)).toEqual(body.map((e) => e.asin));
      const entries = await charges(id);
      expect(entries.map((e) => e.taskId)).toEqual(res.body.tasks.slice(0, 37).map((t: any) => t.id));
      entries.forEach((e, i) => expect(e.balanceAfter).toBeCloseTo((36 - i) * rates.task_post + 0.0001, 9));
      expect(await balanceOf(id)).toBeCloseTo(0.0001, 9);
    });

    it('elements finished from the reuse window (completed, 40402 refunded) mixed with elements that need a read, in one body', async () => {
      const [ok, gone, old, read, high] = [freshAsin(), freshAsin(), freshAsin(), freshAsin(), freshAsin()];
      await storeObservation(app.db, product(ok, 5));
      await storeObservation(app.db, product(gone, 5, 'not_found'));
      await storeObservation(app.db, product(old, 90)); // older than the 60 min window
      const balance = 1;
      const { id, api } = await account(balance);
      const res = await api.post('/v1/retail/product/task_post', [
        { asin: ok, marketplace: 'com', postback_url: 'https://hooks.example.com/p' },
        { asin: read, marketplace: 'com' },
        { asin: gone, marketplace: 'com', pingback_url: 'https://hooks.example.com/ping' },
        { asin: ok, marketplace: 'com' },
        { asin: old, marketplace: 'com' },
        { asin: high, marketplace: 'com', priority: 2 },
      ]);
      expect(res.status).toBe(200);
      const tasks = res.body.tasks as any[];
      expect(tasks.map((t) => [t.status_code, t.cost])).toEqual([
        [20100, rates.task_post], [20100, rates.task_post], [20100, 0], [20100, rates.task_post], [20100, rates.task_post], [20100, rates.task_post_high],
      ]);
      const rows = new Map((await app.prisma.task.findMany({ where: { accountId: id } })).map((r) => [r.id, r]));
      expect([0, 1, 2, 3, 4, 5].map((i) => [rows.get(tasks[i].id)!.state, rows.get(tasks[i].id)!.statusCode, rows.get(tasks[i].id)!.reused])).toEqual([
        ['completed', 20000, true], ['queued', 20100, false], ['failed', 40402, true], ['completed', 20000, true], ['queued', 20100, false], ['queued', 20100, false],
      ]);
      // Only the elements that need a read start a workflow; the finished ones with a webhook start it.
      for (const i of [1, 4, 5]) expect(app.started).toContain(tasks[i].id);
      for (const i of [0, 2, 3]) expect(app.started).not.toContain(tasks[i].id);
      expect(app.webhookStarts.filter((w) => [tasks[0].id, tasks[2].id].includes(w.taskId)).map((w) => [w.taskId, w.kinds]).sort())
        .toEqual([[tasks[0].id, ['postback']], [tasks[2].id, ['pingback']]].sort());
      // The user sees the finished ones in tasks_ready at once.
      const ready = (await api.get('/v1/retail/product/tasks_ready')).body.tasks[0].result.map((r: any) => [r.id, r.status_code]);
      expect(ready.sort()).toEqual([[tasks[0].id, 20000], [tasks[2].id, 40402], [tasks[3].id, 20000]].sort());
      // Charge and refund entries in element order, the running balance unbroken.
      const entries = await charges(id);
      expect(entries.map((e) => [e.kind, e.taskId])).toEqual([
        ['charge', tasks[0].id], ['charge', tasks[1].id], ['charge', tasks[2].id], ['refund', tasks[2].id],
        ['charge', tasks[3].id], ['charge', tasks[4].id], ['charge', tasks[5].id],
      ]);
      let running = balance;
      for (const e of entries) expect(e.balanceAfter).toBeCloseTo((running += e.amount), 9);
      expect(await balanceOf(id)).toBeCloseTo(balance - res.body.cost, 9);
    });

    it('concurrent bodies for one account through two API processes: never overdrawn, each charge once, the running balance unbroken', async () => {
      const { id, login, key } = await account(25 * rates.task_post);
      const clients = [apiClient(app.url, { login, key }), apiClient(second.url, { login, key })];
      const bodies = Array.from({ length: 8 }, () => Array.from({ length: 10 }, () => ({ asin: freshAsin(), marketplace: 'com' })));
      const answers = await Promise.all(bodies.map((body, i) => clients[i % 2]!.post('/v1/retail/product/task_post', body)));
      const accepted = answers.flatMap((a) => (a.status === 200 ? a.body.tasks.filter((t: any) => t.status_code === 20100) : []));
      for (const a of answers) expect([200, 402]).toContain(a.status);
      expect(accepted).toHaveLength(25);
      expect(await balanceOf(id)).toBe(0);
      // Within each body, the accepted elements are a prefix (every price is the same).
      for (const a of answers.filter((x) => x.status === 200)) {
        const codes = a.body.tasks.map((t: any) => t.status_code);
        expect(codes).toEqual([...codes].sort());
      }
      const entries = await charges(id);
      expect(entries).toHaveLength(25);
      expect(new Set(entries.map((e) => e.taskId))).toEqual(new Set(accepted.map((t: any) => t.id)));
      let running = 25 * rates.task_post;
      for (const e of entries) expect(e.balanceAfter).toBeCloseTo((running += e.amount), 9);
      expect(await app.prisma.task.count({ where: { accountId: id } })).toBe(25);

      // Mixed priorities: whatever the interleaving, never below 0, and the ledger adds up.
      const mixedStart = 20 * rates.task_post + 0.0007;
      const mixed = await account(mixedStart);
      const mixedClients = [apiClient(app.url, { login: mixed.login, key: mixed.key }), apiClient(second.url, { login: mixed.login, key: mixed.key })];
      const mixedAnswers = await Promise.all(Array.from({ length: 6 }, (_, b) => mixedClients[b % 2]!.post('/v1/retail/product/task_post',
        Array.from({ length: 10 }, (_, i) => ({ asin: freshAsin(), marketplace: 'com', priority: (b + i) % 3 === 0 ? 2 : 1 })))));
      const spent = mixedAnswers.reduce((sum, a) => sum + (a.status === 200 ? a.body.cost : 0), 0);
      const left = await balanceOf(mixed.id);
      expect(left).toBeGreaterThanOrEqual(0);
      expect(left).toBeLessThan(rates.task_post_high);
      expect(left).toBeCloseTo(mixedStart - spent, 9);
      const money = await accountMoney(app.prisma, { id: mixed.id });
      expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
      running = mixedStart;
      for (const e of await charges(mixed.id)) expect(e.balanceAfter).toBeCloseTo((running += e.amount), 9);
    });
  });
}
