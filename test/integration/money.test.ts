/**
 * Money (api-spec.md charging rules, "Limits", errors 40200 / 40202 / 40600): concurrency-safe
 * charging, refunds exactly once, envelope arithmetic, per-account rate limits on a shared store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { storeObservation } from '../../core/observations.js';
import { PLANS } from '../../core/pricing.js';
import { failTask } from '../../core/tasks.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { apiClient } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { version1Fields } from '../../core/product.js';

const rates = PLANS.standard!.rates;

const balanceAndLedger = (app: TestApp, login: string) => accountMoney(app.prisma, { login });

for (const database of ['pglite', 'postgres'] as const) {
  describe(`charging on ${database}`, () => {
    let app: TestApp;
    beforeAll(async () => { app = await startTestApp({ database }); });
    afterAll(async () => { await app?.close(); });

    it('50 parallel task_post requests on a balance covering exactly 10 → exactly 10 accepted, balance 0, ledger = balance', async () => {
      const { api_key } = await createAccount(app.db, { login: 'ten', email: 't@example.com', balance: rates.task_post * 10 });
      const api = apiClient(app.url, { key: api_key });
      const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => api.post('/v1/retail/product/task_post', [{ asin: 'B07CL39Z8Q', marketplace: 'com', tag: String(i) }])));
      const accepted = responses.filter((r) => r.status === 200 && r.body.tasks[0].status_code === 20100);
      const refused = responses.filter((r) => r.status === 402 && r.body.status_code === 40200);
      expect(accepted).toHaveLength(10);
      expect(refused).toHaveLength(40);
      expect(refused.every((r) => r.body.cost === 0)).toBe(true);
      const { balance, ledgerSum } = await balanceAndLedger(app, 'ten');
      expect(balance).toBe(0);
      expect(ledgerSum).toBeCloseTo(balance, 9);
      expect(await app.prisma.task.count({ where: { account: { login: 'ten' } } })).toBe(10);
    });

    it('a failed task is refunded exactly once, however many times failure is reported', async () => {
      const { api_key } = await createAccount(app.db, { login: 'once', email: 'o@example.com', balance: 1 });
      const post = await apiClient(app.url, { key: api_key }).post('/v1/retail/product/task_post', [{ asin: 'B07CL39Z8Q', marketplace: 'de' }]);
      const id = post.body.tasks[0].id;
      const results = await Promise.all([failTask(app.db, id, 50301), failTask(app.db, id, 50301), failTask(app.db, id, 40402)]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const { balance, entries } = await balanceAndLedger(app, 'once');
      expect(entries.filter((e) => e.kind === 'refund')).toHaveLength(1);
      expect(balance).toBeCloseTo(1, 9);
    });
  });
}

describe('envelope arithmetic and limits (PGlite)', () => {
  let app: TestApp;
  beforeAll(async () => { app = await startTestApp({ database: 'pglite' }); });
  afterAll(async () => { await app?.close(); });

  it('initial balance − Σ envelope cost = final balance over a mixed sequence, refunded failures included', async () => {
    const initial = 0.02;
    const { api_key } = await createAccount(app.db, { login: 'mixed', email: 'm@example.com', balance: initial });
    const api = apiClient(app.url, { login: 'mixed', key: api_key });
    // A product known not to exist (a stored not_found observation within the reuse window).
    await storeObservation(app.db, {
      asin: 'NOTHERE001', marketplace: 'com', url: 'https://www.amazon.com/dp/NOTHERE001', observed_at: new Date().toISOString(), status: 'not_found',
      title: null, byline: [], variant: null, variants: [], price: null, bsr: null, rating: null, ratings_count: null, image_url: null, details: {}, parser_version: 'test', ...version1Fields(),
    });
    const responses = [
      await api.post('/v1/retail/product/task_post', [{ asin: 'B07CL39Z8Q', marketplace: 'com' }, { asin: 'bad', marketplace: 'com' }, { asin: 'B07CL39Z8Q', marketplace: 'fr', priority: 2 }]),
      await api.post('/v1/retail/product/task_post', [{ asin: 'NOTHERE001', marketplace: 'com' }]), // completes at once: 40402, refunded
      await api.post('/v1/retail/product/live', [{ asin: 'NOTHERE001', marketplace: 'us' }]), // 40402 from the stored observation, refunded
      await api.post('/v1/retail/product/live', [{ asin: 'B07CL39Z8Q', marketplace: 'jp', max_age_minutes: 0 }]), // budget runs out: 50301, refunded
      await api.post('/v1/retail/product/history', [{ asin: 'B07CL39Z8Q', marketplace: 'com' }, { asin: 'B07CL39Z8Q', marketplace: 'xx' }]),
      await api.post('/v1/retail/product/task_post', Array.from({ length: 12 }, () => ({ asin: 'B07CL39Z8Q', marketplace: 'uk' }))), // partly unaffordable
      await api.post('/v1/retail/product/task_post', [{ asin: 'bad', marketplace: 'com' }]), // 400, nothing charged
      await api.get('/v1/retail/product/tasks_ready'),
    ];
    expect(responses[1]!.body.tasks[0]).toMatchObject({ status_code: 20100, cost: 0 });
    expect(responses[2]!.body.tasks[0]).toMatchObject({ status_code: 40402, cost: 0 });
    expect(responses[3]!.body.tasks[0]).toMatchObject({ status_code: 50301, cost: 0 });
    expect(responses[5]!.body.tasks.some((t: any) => t.status_code === 40200)).toBe(true);
    expect(responses[6]!.status).toBe(400);
    const charged = responses.reduce((sum, r) => sum + r.body.cost, 0);
    const { balance, ledgerSum } = await balanceAndLedger(app, 'mixed');
    expect(Math.abs(initial - charged - balance)).toBeLessThan(1e-6);
    expect(Math.abs(ledgerSum - balance)).toBeLessThan(1e-6);
    for (const r of responses) {
      const sum = (r.body.tasks as any[]).reduce((s, t) => s + t.cost, 0);
      expect(Math.abs(sum - r.body.cost)).toBeLessThan(1e-9);
    }
  });

  it('requests per minute: the request over the limit gets 429 / 40202 with Retry-After and is not charged', async () => {
    const { api_key } = await createAccount(app.db, { login: 'rpm', email: 'r@example.com', balance: 1 });
    await app.prisma.account.update({ where: { login: 'rpm' }, data: { requestsPerMinute: 3 } });
    const api = apiClient(app.url, { key: api_key });
    for (let i = 0; i < 3; i++) expect((await api.post('/v1/retail/product/task_post', [{ asin: 'B07CL39Z8Q', marketplace: 'com' }])).status).toBe(200);
    const before = (await balanceAndLedger(app, 'rpm')).balance;
    const refused = await api.post('/v1/retail/product/task_post', [{ asin: 'B07CL39Z8Q', marketplace: 'com' }]);
    expect(refused.status).toBe(429);
    expect(refused.body.status_code).toBe(40202);
    expect(refused.body.cost).toBe(0);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await balanceAndLedger(app, 'rpm')).balance).toBe(before);
  });

  it('tasks per minute count task objects, and the counters are shared by several API processes', async () => {
    const { api_key } = await createAccount(app.db, { login: 'tpm', email: 'tp@example.com', balance: 1 });
    await app.prisma.account.update({ where: { login: 'tpm' }, data: { tasksPerMinute: 5 } });
    const other = await app.another();
    const first = apiClient(app.url, { key: api_key });
    const second = apiClient(other.url, { key: api_key });
    const three = Array.from({ length: 3 }, () => ({ asin: 'B07CL39Z8Q', marketplace: 'ca' }));
    expect((await first.post('/v1/retail/product/task_post', three)).status).toBe(200);
    const overLimit = await second.post('/v1/retail/product/task_post', three);
    expect(overLimit.status).toBe(429);
    expect(overLimit.body.status_code).toBe(40202);
    expect((await second.post('/v1/retail/product/task_post', three.slice(0, 2))).status).toBe(200);
  });

  it('a feature the plan lacks → 403 / 40600', async () => {
    const { api_key } = await createAccount(app.db, { login: 'basic', email: 'b@example.com', balance: 1, plan: 'basic' });
    const api = apiClient(app.url, { key: api_key });
    const live = await api.post('/v1/retail/product/live', [{ asin: 'B07CL39Z8Q', marketplace: 'com' }]);
    expect(live.status).toBe(403);
    expect(live.body.status_code).toBe(40600);
    const high = await api.post('/v1/retail/product/task_post', [{ asin: 'B07CL39Z8Q', marketplace: 'com', priority: 2 }]);
    expect(high.status).toBe(403);
    expect(high.body.status_code).toBe(40600);
    expect(Number((await app.prisma.account.findUniqueOrThrow({ where: { login: 'basic' } })).balance)).toBe(1);
  });
});
