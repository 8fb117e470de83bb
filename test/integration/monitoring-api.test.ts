/**
 * monitoring/add, monitoring/delete, monitoring/list over HTTP against buildApp on a real embedded
 * PostgreSQL (PGlite): validation, the 10,000 limit, re-adding, pausing for balance at add,
 * resuming on top-up, latest observations. Temporal is replaced at its boundary by a launcher that
 * records what the API asked of the monitors; monitoring.test.ts runs the real workflows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, topUp } from '../../api/admin/accounts.js';
import { listMonitoring } from '../../api/services/monitoring.js';
import type { MonitorLauncher, MonitorTarget } from '../../api/services/monitor-launcher.js';
import { dbOf, type Db } from '../../core/db/db.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { storeObservation } from '../../core/observations.js';
import { PLANS } from '../../core/pricing.js';
import { version1Fields, type Product } from '../../core/product.js';
import { deliverObservation, MAX_SUBSCRIPTIONS_PER_ACCOUNT } from '../../core/subscriptions.js';
import { apiClient, type ApiClient } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PRICE = PLANS.standard!.rates.monitoring;
let app: TestApp;
let db: Db;
let prisma: PrismaClient;
let baseUrl: string;
/** What the API asked of the monitors. */
const ensured: (MonitorTarget & { call: 'start' | 'configure' })[] = [];
const stopped: number[] = [];
const resumed: number[][] = [];
let failEnsure = false;
const monitors: MonitorLauncher = {
  start: async (target) => {
    if (failEnsure) throw new Error('temporal down');
    ensured.push({ ...target, call: 'start' });
  },
  configure: async (target) => {
    if (failEnsure) throw new Error('temporal down');
    ensured.push({ ...target, call: 'configure' });
  },
  resume: async (ids) => { resumed.push(ids); },
  stop: async (id) => { stopped.push(id); },
};

async function account(login: string, balance: number): Promise<{ id: number; api: ApiClient }> {
  const created = await createAccount(db, { login, email: `${login}@example.com`, balance });
  return { id: created.id, api: apiClient(baseUrl, { login, key: created.api_key }) };
}

function product(asin: string, marketplace: string, status: 'ok' | 'not_found' = 'ok'): Product {
  return {
    asin, marketplace, url: `https://www.amazon.com/dp/${asin}`, observed_at: new Date().toISOString(), status,
    title: status === 'ok' ? `Title ${asin}` : null, byline: [], variant: null, variants: [], price: null, bsr: null,
    rating: null, ratings_count: null, image_url: null, details: {}, parser_version: 'test', ...version1Fields(),
  };
}

beforeAll(async () => {
  app = await startTestApp({ monitors, env: { MONITORING_INTERVALS: 'hourly=2s,every_6h=4s,daily=6s' } });
  ({ db, prisma, url: baseUrl } = app);
});

afterAll(async () => {
  await app?.close();
});

describe('monitoring/add', () => {
  it('creates Subscriptions, free of charge, and starts one monitor each', async () => {
    const { id, api } = await account('adder', 1);
    const res = await api.post('/v1/retail/monitoring/add', [
      { asin: 'b0000000p1', marketplace: 'DE', frequency: 'hourly', tag: 'mine', external_user_id: 'user-42' },
      { asin: 'B0000000N1', marketplace: 'us', frequency: 'daily' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status_code: 20000, cost: 0, tasks_count: 2, tasks_error: 0 });
    const [a, b] = res.body.tasks.map((t: any) => t.result[0]);
    expect(res.body.tasks[0]).toMatchObject({ status_code: 20000, cost: 0, result_count: 1, path: ['v1', 'retail', 'monitoring', 'add'] });
    expect(res.body.tasks[0].data).toMatchObject({ asin: 'b0000000p1', marketplace: 'DE', api: 'retail', function: 'add' });
    expect(a).toEqual({
      id: expect.any(Number), asin: 'B0000000P1', marketplace: 'de', frequency: 'hourly', tag: 'mine', external_user_id: 'user-42',
      status: 'active', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/), alerts: [], alert_url: null,
    });
    expect(b).toMatchObject({ asin: 'B0000000N1', marketplace: 'com', frequency: 'daily', tag: null, external_user_id: null, status: 'active' });
    expect(ensured.filter((t) => [a.id, b.id].includes(t.subscriptionId))).toEqual([
      { subscriptionId: a.id, asin: 'B0000000P1', marketplace: 'de', frequency: 'hourly', paused: false, accountId: id, tag: 'mine', call: 'start' },
      { subscriptionId: b.id, asin: 'B0000000N1', marketplace: 'com', frequency: 'daily', paused: false, accountId: id, tag: null, call: 'start' },
    ]);
    const acc = await prisma.account.findUniqueOrThrow({ where: { id } });
    expect(Number(acc.balance)).toBe(1);
  });

  it('the same asin + marketplace again updates frequency and tag of the existing subscription', async () => {
    const { api } = await account('readder', 1);
    const first = (await api.post('/v1/retail/monitoring/add', [{ asin: 'B0000000D1', marketplace: 'com', frequency: 'daily', tag: 'old', external_user_id: 'u1' }])).body.tasks[0].result[0];
    const again = await api.post('/v1/retail/monitoring/add', [{ asin: 'b0000000d1', marketplace: 'usa', frequency: 'hourly', tag: 'new', external_user_id: 'u2' }]);
    expect(again.body.tasks[0].result[0]).toMatchObject({ id: first.id, frequency: 'hourly', tag: 'new', external_user_id: 'u1', created_at: first.created_at });
    // Without a tag the tag stays; repeated in one body, the last element wins.
    const twice = await api.post('/v1/retail/monitoring/add', [
      { asin: 'B0000000D1', marketplace: 'com', frequency: 'every_6h' },
      { asin: 'B0000000D1', marketplace: 'com', frequency: 'daily', tag: null },
    ]);
    expect(twice.body.tasks.map((t: any) => t.result[0])).toEqual([
      expect.objectContaining({ id: first.id, frequency: 'daily', tag: null }),
      expect.objectContaining({ id: first.id, frequency: 'daily', tag: null }),
    ]);
    expect(await prisma.subscription.count({ where: { asin: 'B0000000D1' } })).toBe(1);
    expect(ensured.filter((t) => t.subscriptionId === first.id).map((t) => `${t.call} ${t.frequency}`)).toEqual(['start daily', 'configure hourly', 'configure daily']);
  });

  it('rejects bad fields per task (40501 naming the field, 40502, 40503) and the whole request when none is valid', async () => {
    const { api } = await account('validator', 1);
    const ok = { asin: 'B0000000T1', marketplace: 'com', frequency: 'hourly' };
    const cases: [Record<string, unknown>, number, string?][] = [
      [{ ...ok, asin: 'short' }, 40503],
      [{ ...ok, asin: 12 }, 40501, 'asin'],
      [{ ...ok, marketplace: 'zz' }, 40502],
      [{ ...ok, frequency: 'weekly' }, 40501, 'frequency'],
      [{ asin: ok.asin, marketplace: ok.marketplace }, 40501, 'frequency'],
      [{ ...ok, tag: 'x'.repeat(256) }, 40501, 'tag'],
      [{ ...ok, tag: 5 }, 40501, 'tag'],
      [{ ...ok, external_user_id: 'x'.repeat(256) }, 40501, 'external_user_id'],
      [{ ...ok, external_user_id: 'jane.doe@example.com' }, 40501, 'external_user_id'],
      [{ ...ok, external_user_id: 'crm:Jane <jane@mail.example.org>' }, 40501, 'external_user_id'],
    ];
    const res = await api.post('/v1/retail/monitoring/add', [...cases.map(([element]) => element), ok]);
    expect(res.status).toBe(200);
    expect(res.body.tasks_error).toBe(cases.length);
    for (const [i, [, code, field]] of cases.entries()) {
      expect(res.body.tasks[i].status_code, JSON.stringify(cases[i]![0])).toBe(code);
      expect(res.body.tasks[i].result).toBeNull();
      if (field) expect(res.body.tasks[i].status_message).toBe(`Invalid field: \`${field}\`.`);
    }
    expect(res.body.tasks[cases.length].status_code).toBe(20000);
    const allBad = await api.post('/v1/retail/monitoring/add', [{ ...ok, external_user_id: 'me@example.com' }]);
    expect(allBad.status).toBe(400);
    expect(allBad.body).toMatchObject({ status_code: 40501, status_message: 'Invalid field: `external_user_id`.', tasks: [] });
    expect((await api.post('/v1/retail/monitoring/add', [])).body.status_code).toBe(40000);
    expect((await api.post('/v1/retail/monitoring/add', Array.from({ length: 101 }, () => ok))).body.status_code).toBe(40001);
    expect((await api.post('/v1/retail/monitoring/add', { ...ok })).body.status_code).toBe(40000);
    expect(await prisma.subscription.count({ where: { account: { login: 'validator' } } })).toBe(1);
  });

  it('at 10,000 subscriptions a new product fails at task level with 40000; existing ones still update', async () => {
    const { id, api } = await account('full', 1);
    await prisma.subscription.createMany({
      data: Array.from({ length: MAX_SUBSCRIPTIONS_PER_ACCOUNT - 1 }, (_, i) => ({ accountId: id, asin: `S${String(i).padStart(9, '0')}`, marketplace: 'com', frequency: 'daily' })),
    });
    const res = await api.post('/v1/retail/monitoring/add', [
      { asin: 'LAST000001', marketplace: 'com', frequency: 'daily' },
      { asin: 'OVER000001', marketplace: 'com', frequency: 'daily' },
      { asin: 'S000000007', marketplace: 'com', frequency: 'hourly', tag: 'still' },
    ]);
    expect(res.body.tasks.map((t: any) => t.status_code)).toEqual([20000, 40000, 20000]);
    expect(res.body.tasks[1]).toMatchObject({ status_message: expect.stringMatching(/^Bad Request\..*10,000/), result: null, cost: 0 });
    expect(res.body.tasks[2].result[0]).toMatchObject({ asin: 'S000000007', frequency: 'hourly', tag: 'still' });
    expect(await prisma.subscription.count({ where: { accountId: id } })).toBe(MAX_SUBSCRIPTIONS_PER_ACCOUNT);
    const again = await api.post('/v1/retail/monitoring/add', [{ asin: 'OVER000002', marketplace: 'de', frequency: 'hourly' }]);
    expect(again.status).toBe(200);
    expect(again.body.tasks[0].status_code).toBe(40000);
  });

  it('added as paused_balance when the balance is below the monitoring price or the subscriptions are paused; a top-up resumes them', async () => {
    const poor = await account('poor', PRICE / 2);
    const res = await poor.api.post('/v1/retail/monitoring/add', [{ asin: 'B0000000P1', marketplace: 'de', frequency: 'hourly' }]);
    const sub = res.body.tasks[0].result[0];
    expect(sub.status).toBe('paused_balance');
    expect(ensured.at(-1)).toMatchObject({ subscriptionId: sub.id, paused: true });

    const flagged = await account('flagged', 5);
    await prisma.account.update({ where: { id: flagged.id }, data: { subscriptionsPaused: true } });
    const paused = (await flagged.api.post('/v1/retail/monitoring/add', [{ asin: 'B0000000P1', marketplace: 'de', frequency: 'hourly' }])).body.tasks[0].result[0];
    expect(paused.status).toBe('paused_balance');

    // A top-up that still leaves the balance below the price resumes nothing.
    await topUp(db, { login: 'poor', amount: PRICE / 10 }, { monitors });
    expect((await prisma.subscription.findUniqueOrThrow({ where: { id: sub.id } })).status).toBe('paused_balance');
    await topUp(db, { login: 'poor', amount: 1 }, { monitors });
    expect((await prisma.subscription.findUniqueOrThrow({ where: { id: sub.id } })).status).toBe('active');
    expect(resumed.at(-1)).toEqual([sub.id]);
    await topUp(db, { login: 'flagged', amount: 1 }, { monitors });
    expect((await prisma.subscription.findUniqueOrThrow({ where: { id: paused.id } })).status).toBe('active');
    expect((await prisma.account.findUniqueOrThrow({ where: { id: flagged.id } })).subscriptionsPaused).toBe(false);
    expect(resumed.at(-1)).toEqual([paused.id]);
  });

  it('a monitor Temporal refuses to start fails its task with 50301 and leaves no subscription', async () => {
    const { id, api } = await account('unlucky', 1);
    failEnsure = true;
    try {
      const res = await api.post('/v1/retail/monitoring/add', [{ asin: 'B0000000P1', marketplace: 'de', frequency: 'hourly' }]);
      expect(res.body.tasks[0]).toMatchObject({ status_code: 50301, result: null });
    } finally {
      failEnsure = false;
    }
    expect(await prisma.subscription.count({ where: { accountId: id } })).toBe(0);
  });
});

describe('monitoring/delete', () => {
  it('deletes by id or by asin + marketplace, stops the monitor and keeps the observations; unknown → task-level 40400', async () => {
    const { api } = await account('deleter', 1);
    const other = await account('stranger', 1);
    const added = await api.post('/v1/retail/monitoring/add', [
      { asin: 'B0000000P1', marketplace: 'de', frequency: 'hourly' },
      { asin: 'B0000000N1', marketplace: 'com', frequency: 'hourly' },
      { asin: 'B0000000J1', marketplace: 'jp', frequency: 'hourly' },
    ]);
    const [p1, n1, j1] = added.body.tasks.map((t: any) => t.result[0]);
    const theirs = (await other.api.post('/v1/retail/monitoring/add', [{ asin: 'B0000000P1', marketplace: 'de', frequency: 'hourly' }])).body.tasks[0].result[0];
    const observation = await storeObservation(db, product('B0000000P1', 'de'), p1.id);
    expect(await deliverObservation(db, { subscriptionId: p1.id, observationId: observation })).toBe('charged');

    const res = await api.post('/v1/retail/monitoring/delete', [
      { id: p1.id },
      { asin: 'b0000000n1', marketplace: 'us' },
      { id: theirs.id },
      { id: 999_999 },
      { id: p1.id },
      { id: j1.id, asin: 'B0000000P1', marketplace: 'de' },
      { id: 0 },
      { id: '3' },
      { asin: 'B0000000J1' },
      {},
    ]);
    expect(res.status).toBe(200);
    expect(res.body.tasks.map((t: any) => t.status_code)).toEqual([20000, 20000, 40400, 40400, 40400, 40400, 40501, 40501, 40501, 40501]);
    expect(res.body.tasks.slice(6).map((t: any) => t.status_message)).toEqual(['Invalid field: `id`.', 'Invalid field: `id`.', 'Invalid field: `marketplace`.', 'Invalid field: `id`.']);
    expect(res.body.tasks[0].result[0]).toMatchObject({ id: p1.id, asin: 'B0000000P1', marketplace: 'de' });
    expect(res.body.tasks[1].result[0]).toMatchObject({ id: n1.id });
    expect(res.body.cost).toBe(0);
    expect(stopped).toEqual(expect.arrayContaining([p1.id, n1.id]));
    expect(stopped).not.toContain(theirs.id);
    expect(await prisma.subscription.findMany({ where: { id: { in: [p1.id, n1.id, j1.id, theirs.id] } }, select: { id: true } })).toEqual(
      expect.arrayContaining([{ id: j1.id }, { id: theirs.id }]),
    );
    const kept = await prisma.observation.findUniqueOrThrow({ where: { id: observation } });
    expect(kept.subscriptionId).toBeNull();
    // A read that finishes after the delete is stored as a plain observation, and delivers nothing.
    const late = await storeObservation(db, product('B0000000P1', 'de'), p1.id);
    expect((await prisma.observation.findUniqueOrThrow({ where: { id: late } })).subscriptionId).toBeNull();
    expect(await deliverObservation(db, { subscriptionId: p1.id, observationId: late })).toBe('deleted');
    const allBad = await api.post('/v1/retail/monitoring/delete', [{ id: -1 }]);
    expect(allBad.status).toBe(400);
    expect(allBad.body.status_code).toBe(40501);
    const unknown = await api.post('/v1/retail/monitoring/delete', [{ id: 999_998 }]);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ status_code: 20000, tasks_error: 1 });
    expect(unknown.body.tasks[0]).toMatchObject({ status_code: 40400, status_message: 'Not Found.', result: null });
  });
});

describe('monitoring/list', () => {
  let owner: { id: number; api: ApiClient };
  let ids: number[];

  beforeAll(async () => {
    owner = await account('lister', 1);
    const res = await owner.api.post('/v1/retail/monitoring/add', [
      { asin: 'L000000001', marketplace: 'com', frequency: 'hourly', tag: 'a' },
      { asin: 'L000000002', marketplace: 'de', frequency: 'daily', tag: 'b' },
      { asin: 'L000000003', marketplace: 'uk', frequency: 'every_6h', tag: 'a' },
    ]);
    ids = res.body.tasks.map((t: any) => t.result[0].id);
  });

  it('lists active and paused subscriptions with latest_observation, null before the first delivery', async () => {
    const older = await storeObservation(db, product('L000000001', 'com'), ids[0]);
    await deliverObservation(db, { subscriptionId: ids[0]!, observationId: older });
    const newer = await storeObservation(db, { ...product('L000000001', 'com'), title: 'Newest' }, ids[0]);
    await deliverObservation(db, { subscriptionId: ids[0]!, observationId: newer });
    const missing = await storeObservation(db, product('L000000003', 'uk', 'not_found'), ids[2]);
    expect(await deliverObservation(db, { subscriptionId: ids[2]!, observationId: missing })).toBe('free');
    await prisma.subscription.update({ where: { id: ids[1] }, data: { status: 'paused_balance' } });

    const res = await owner.api.get('/v1/retail/monitoring/list');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status_code: 20000, cost: 0, tasks_count: 1 });
    const task = res.body.tasks[0];
    expect(task).toMatchObject({ status_code: 20000, result_count: 3, path: ['v1', 'retail', 'monitoring', 'list'], data: { api: 'retail', function: 'list' } });
    expect(task.result.map((s: any) => s.id)).toEqual(ids);
    expect(task.result.map((s: any) => s.status)).toEqual(['active', 'paused_balance', 'active']);
    expect(task.result[0].latest_observation).toMatchObject({ asin: 'L000000001', title: 'Newest', status: 'ok', parser_version: 'test' });
    expect(task.result[1].latest_observation).toBeNull();
    expect(task.result[2].latest_observation).toMatchObject({ status: 'not_found', title: null });
    expect(Object.keys(task.result[1]).sort()).toEqual(['alert_url', 'alerts', 'asin', 'created_at', 'external_user_id', 'frequency', 'id', 'latest_observation', 'marketplace', 'status', 'tag'].sort());
  });

  it('pages with limit and offset, filters by tag, and never shows other accounts', async () => {
    expect((await owner.api.get('/v1/retail/monitoring/list?limit=2')).body.tasks[0].result.map((s: any) => s.id)).toEqual(ids.slice(0, 2));
    expect((await owner.api.get('/v1/retail/monitoring/list?limit=2&offset=2')).body.tasks[0].result.map((s: any) => s.id)).toEqual(ids.slice(2));
    expect((await owner.api.get('/v1/retail/monitoring/list?offset=10')).body.tasks[0].result).toEqual([]);
    expect((await owner.api.get('/v1/retail/monitoring/list?tag=a')).body.tasks[0].result.map((s: any) => s.id)).toEqual([ids[0], ids[2]]);
    expect((await owner.api.get(`/v1/retail/monitoring/list?tag=${encodeURIComponent('x'.repeat(255))}`)).body.tasks[0].result).toEqual([]);
    const stranger = await account('nosy', 1);
    expect((await stranger.api.get('/v1/retail/monitoring/list')).body.tasks[0].result).toEqual([]);
  });

  it('an invalid query parameter fails the request with 400 / 40501 naming it', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'], ['limit=1001', 'limit'], ['limit=abc', 'limit'], ['limit=1.5', 'limit'], ['limit=', 'limit'], ['limit=1&limit=2', 'limit'],
      ['offset=-1', 'offset'], ['offset=x', 'offset'], [`tag=${'x'.repeat(256)}`, 'tag'], ['tag=a&tag=b', 'tag'],
    ]) {
      const res = await owner.api.get(`/v1/retail/monitoring/list?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ status_code: 40501, status_message: `Invalid field: \`${field}\`.`, tasks: [] });
    }
    expect((await owner.api.get('/v1/retail/monitoring/list?limit=1000&offset=0')).status).toBe(200);
    expect((await owner.api.post('/v1/retail/monitoring/list', [])).status).toBe(405);
  });

  it('reads a page of any size with three queries (no N+1): subscriptions, latest observations, alert rules', async () => {
    const operations: string[] = [];
    const counting = prisma.$extends({
      query: { $allOperations: async ({ model, operation, args, query }) => { operations.push(`${model}.${operation}`); return query(args); } },
    }) as unknown as PrismaClient;
    const more = await owner.api.post('/v1/retail/monitoring/add', Array.from({ length: 50 }, (_, i) => ({ asin: `M${String(i).padStart(9, '0')}`, marketplace: 'com', frequency: 'daily' })));
    for (const task of more.body.tasks.slice(0, 20)) {
      const id = task.result[0].id;
      await deliverObservation(db, { subscriptionId: id, observationId: await storeObservation(db, product(task.result[0].asin, 'com'), id) });
    }
    const account = { id: owner.id, login: 'lister', plan: 'standard', keyId: 0, limits: { requestsPerMinute: 1, tasksPerMinute: 1 } };
    const outcome = await listMonitoring({ db: dbOf(counting) }, account, { limit: '1000' });
    expect(outcome.tasks[0]!.result).toHaveLength(53);
    expect(outcome.tasks[0]!.result!.filter((s: any) => s.latest_observation !== null)).toHaveLength(22);
    // The latest observations are one joined statement with their content and texts (core/observations.ts `observationsById`).
    expect(operations).toEqual(['Subscription.findMany', 'undefined.$queryRawUnsafe', 'AlertRule.findMany']);
  });
});
