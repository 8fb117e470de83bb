/**
 * Metering and GET /v1/appendix/usage (api-spec.md "Appendix endpoints", "Other result objects":
 * Usage, "Limits": usage range 366 days), over HTTP against buildApp on a real embedded
 * PostgreSQL (PGlite). Workflow starts go to a recording launcher.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import type { Db } from '../../core/db/db.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { PLANS } from '../../core/pricing.js';
import { addDays, recordUsage, utcDay } from '../../core/usage.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { apiClient, type ApiClient } from '../support/http.js';

const price = PLANS.standard!.rates.task_post;
let app: TestApp;
let db: Db;
let prisma: PrismaClient;
let baseUrl: string;

beforeAll(async () => {
  app = await startTestApp({ database: 'pglite' });
  ({ db, prisma, url: baseUrl } = app);
});

afterAll(async () => {
  await app?.close();
});

async function account(login: string, balance = 10): Promise<{ id: number; key: string; api: ApiClient }> {
  const a = await createAccount(db, { login, email: `${login}@example.com`, balance });
  return { id: a.id, key: a.api_key, api: apiClient(baseUrl, { login, key: a.api_key }) };
}

function expectInvalid(res: { status: number; body: any }, field: string) {
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ status_code: 40501, status_message: `Invalid field: \`${field}\`.`, tasks_count: 0, tasks: [] });
}

describe('GET /v1/appendix/usage', () => {
  it('defaults to the 30 UTC days ending today, zero days included', async () => {
    const { api } = await account('u1');
    const res = await api.get('/v1/appendix/usage');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status_code: 20000, cost: 0, tasks_count: 1 });
    const task = res.body.tasks[0];
    expect(task).toMatchObject({ status_code: 20000, path: ['v1', 'appendix', 'usage'], data: { api: 'appendix', function: 'usage' } });
    const result = task.result[0];
    const today = utcDay();
    expect(result.date_from).toBe(addDays(today, -29));
    expect(result.date_to).toBe(today);
    expect(result.days).toHaveLength(30);
    expect(result.days[0]).toEqual({ date: addDays(today, -29), requests: 0, tasks: 0, cost: 0 });
    expect(result.days.at(-1).date).toBe(today);
    expect(result.days.every((d: any) => d.requests === 0 && d.tasks === 0 && d.cost === 0)).toBe(true);
    expect(result.endpoints).toEqual([]);
    expect(result.totals).toEqual({ requests: 0, tasks: 0, cost: 0 });
  });

  it('counts requests, tasks and cost per endpoint and per day; 401s and anonymous calls are not metered', async () => {
    const { api, key } = await account('u2');
    const posted = await api.post('/v1/retail/product/task_post', [
      { asin: 'B07CL39Z8Q', marketplace: 'com' },
      { asin: 'B07CL39Z8Q', marketplace: 'de', priority: 2 },
      { asin: 'bad', marketplace: 'com' },
    ]);
    expect(posted.body.cost).toBeCloseTo(price + PLANS.standard!.rates.task_post_high, 9);
    await api.get('/v1/retail/product/tasks_ready');
    await api.get('/v1/retail/product/task_get/00000000-0000-4000-8000-000000000000');
    await api.get('/v1/appendix/errors');
    await api.get('/v1/appendix/errors');
    await apiClient(baseUrl).get('/v1/appendix/marketplaces');
    await apiClient(baseUrl, { key: `${key}x` }).get('/v1/appendix/user_data');
    await api.post('/v1/appendix/keys', [{}, { label: 7 }]);

    const result = (await api.get('/v1/appendix/usage')).body.tasks[0].result[0];
    const cost = Math.round((price + PLANS.standard!.rates.task_post_high) * 1e6) / 1e6;
    expect(result.endpoints).toEqual([
      { endpoint: 'errors', requests: 2, tasks: 2, cost: 0 },
      { endpoint: 'keys', requests: 1, tasks: 2, cost: 0 },
      { endpoint: 'task_get', requests: 1, tasks: 0, cost: 0 },
      { endpoint: 'task_post', requests: 1, tasks: 3, cost },
      { endpoint: 'tasks_ready', requests: 1, tasks: 1, cost: 0 },
    ]);
    expect(result.totals).toEqual({ requests: 6, tasks: 8, cost });
    expect(result.days.at(-1)).toEqual({ date: utcDay(), requests: 6, tasks: 8, cost });

    const second = (await api.get('/v1/appendix/usage')).body.tasks[0].result[0];
    expect(second.endpoints.find((e: any) => e.endpoint === 'usage')).toEqual({ endpoint: 'usage', requests: 1, tasks: 1, cost: 0 });
  });

  it('places counters on their UTC day within an explicit range', async () => {
    const { id, api } = await account('u3');
    await recordUsage(db, { accountId: id, endpoint: 'live', tasks: 1, cost: 0.004, at: new Date('2026-03-01T23:59:59Z') });
    await recordUsage(db, { accountId: id, endpoint: 'live', tasks: 1, cost: 0.004, at: new Date('2026-03-01T00:00:00Z') });
    await recordUsage(db, { accountId: id, endpoint: 'history', tasks: 3, cost: 0.0015, at: new Date('2026-03-03T12:00:00Z') });
    await recordUsage(db, { accountId: id, endpoint: 'history', tasks: 9, cost: 9, at: new Date('2026-03-05T00:00:00Z') });
    const res = await api.get('/v1/appendix/usage?date_from=2026-02-28&date_to=2026-03-04');
    expect(res.status).toBe(200);
    const result = res.body.tasks[0].result[0];
    expect(res.body.tasks[0].data).toEqual({ date_from: '2026-02-28', date_to: '2026-03-04', api: 'appendix', function: 'usage' });
    expect(result.days).toEqual([
      { date: '2026-02-28', requests: 0, tasks: 0, cost: 0 },
      { date: '2026-03-01', requests: 2, tasks: 2, cost: 0.008 },
      { date: '2026-03-02', requests: 0, tasks: 0, cost: 0 },
      { date: '2026-03-03', requests: 1, tasks: 3, cost: 0.0015 },
      { date: '2026-03-04', requests: 0, tasks: 0, cost: 0 },
    ]);
    expect(result.endpoints).toEqual([
      { endpoint: 'history', requests: 1, tasks: 3, cost: 0.0015 },
      { endpoint: 'live', requests: 2, tasks: 2, cost: 0.008 },
    ]);
    expect(result.totals).toEqual({ requests: 3, tasks: 5, cost: 0.0095 });
    const one = (await api.get('/v1/appendix/usage?date_from=2026-03-05&date_to=2026-03-05')).body.tasks[0].result[0];
    expect(one.days).toEqual([{ date: '2026-03-05', requests: 1, tasks: 9, cost: 9 }]);
  });

  it('accepts up to 366 days; more, a reversed range or a bad date → 400 / 40501 naming the field', async () => {
    const { api } = await account('u4');
    const full = await api.get('/v1/appendix/usage?date_from=2024-01-01&date_to=2024-12-31');
    expect(full.status).toBe(200);
    expect(full.body.tasks[0].result[0].days).toHaveLength(366);
    expectInvalid(await api.get('/v1/appendix/usage?date_from=2024-01-01&date_to=2025-01-01'), 'date_from');
    expectInvalid(await api.get('/v1/appendix/usage?date_from=2026-03-02&date_to=2026-03-01'), 'date_from');
    expectInvalid(await api.get(`/v1/appendix/usage?date_from=${addDays(utcDay(), -366)}`), 'date_from');
    expectInvalid(await api.get('/v1/appendix/usage?date_to=2026-02-30'), 'date_to');
    expectInvalid(await api.get('/v1/appendix/usage?date_from=2026-1-01'), 'date_from');
    expectInvalid(await api.get('/v1/appendix/usage?date_from='), 'date_from');
    expectInvalid(await api.get('/v1/appendix/usage?date_to=2026-03-01&date_to=2026-03-02'), 'date_to');
    const onlyTo = (await api.get('/v1/appendix/usage?date_to=2026-03-31')).body.tasks[0].result[0];
    expect([onlyTo.date_from, onlyTo.days.length]).toEqual(['2026-03-02', 30]);
  });

  it('requires authentication', async () => {
    const res = await apiClient(baseUrl).get('/v1/appendix/usage');
    expect(res.status).toBe(401);
    expect(res.body.status_code).toBe(40100);
  });
});

describe('metering', () => {
  it('concurrent requests to two API processes are all counted, and written without being read', async () => {
    const { id, key, api } = await account('m1');
    const other = await app.another();
    try {
      const otherApi = apiClient(other.url, { login: 'm1', key });
      await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? otherApi : api).get('/v1/appendix/marketplaces')));
      // Each process adds its own counts to the shared row within a second (no usage read asks for it).
      await vi.waitFor(async () => {
        const row = await prisma.usageCounter.findFirst({ where: { accountId: id, endpoint: 'marketplaces' } });
        expect([row?.requests, row?.tasks, Number(row?.cost)]).toEqual([12, 12, 0]);
      }, { timeout: 10_000, interval: 200 });
    } finally {
      await other.close();
    }
  });

  it('user_data reports usage today and this month from the counters', async () => {
    const { id, api } = await account('m2');
    const today = utcDay();
    await recordUsage(db, { accountId: id, endpoint: 'live', tasks: 1, cost: 0.004 });
    const monthStart = `${today.slice(0, 7)}-01`;
    if (monthStart !== today) await recordUsage(db, { accountId: id, endpoint: 'live', tasks: 2, cost: 0.5, at: new Date(`${monthStart}T10:00:00Z`) });
    await recordUsage(db, { accountId: id, endpoint: 'live', tasks: 7, cost: 7, at: new Date(`${addDays(monthStart, -1)}T10:00:00Z`) });
    const usage = (await api.get('/v1/appendix/user_data')).body.tasks[0].result[0].usage;
    expect(usage.today).toEqual({ requests: 1, tasks: 1, cost: 0.004 });
    expect(usage.this_month).toEqual(monthStart !== today ? { requests: 2, tasks: 3, cost: 0.504 } : usage.today);
  });
});
