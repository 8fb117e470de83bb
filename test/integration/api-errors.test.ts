/**
 * The REST envelope, status codes, authentication and field rules (api-spec.md "Errors"), over
 * HTTP against buildApp on a real embedded PostgreSQL (PGlite). Workflow starts are recorded by a
 * launcher at the Temporal boundary: these tests are about what the API answers, not the reads.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import type { TaskLauncher } from '../../api/services/task-launcher.js';
import { MIGRATIONS_DIR, applyMigrations } from '../../core/db/migrator.js';
import type { Db } from '../../core/db/db.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { storeObservation } from '../../core/observations.js';
import { PLANS } from '../../core/pricing.js';
import { apiClient, type ApiClient } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { version1Fields } from '../../core/product.js';

const price = PLANS.standard!.rates.task_post;
let app: TestApp;
let db: Db;
let prisma: PrismaClient;
let baseUrl: string;
let started: string[];
/** Webhook deliveries asked for: with the task's workflow, or at once by the API (reuse window). */
const webhookStarts: { taskId: string; kinds: string[]; from: 'productTask' | 'api' }[] = [];
let rich: { login: string; api_key: string };
let api: ApiClient;

beforeAll(async () => {
  started = [];
  const launcher: TaskLauncher = {
    start: async (input) => { started.push(input.taskId); if (input.webhookKinds?.length) webhookStarts.push({ taskId: input.taskId, kinds: input.webhookKinds, from: 'productTask' }); },
    startWebhooks: async (input) => { webhookStarts.push({ ...input, from: 'api' }); },
    waitFor: async () => false,
    cancel: async () => undefined,
  };
  app = await startTestApp({ launcher, monitors: false, env: { LIVE_BUDGET: '200ms' } });
  ({ db, prisma, url: baseUrl } = app);
  rich = await createAccount(db, { login: 'rich', email: 'rich@example.com', balance: 100 });
  api = apiClient(baseUrl, { login: 'rich', key: rich.api_key });
});

afterAll(async () => {
  await app?.close();
});

function expectEnvelope(body: any, code: number) {
  expect(body).toMatchObject({ version: expect.any(String), status_code: code, status_message: expect.any(String), cost: expect.any(Number) });
  expect(body.time).toMatch(/^\d+\.\d{4} sec\.$/);
  expect(body.tasks_count).toBe(body.tasks.length);
}

describe('system endpoints', () => {
  it('GET /health answers 200 with queue visibility, without authentication', async () => {
    const res = await apiClient(baseUrl).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', database: true, queue: { queued_tasks: expect.any(Object) } });
  });

  it('GET /ready answers 200 when migrations are applied', async () => {
    const res = await apiClient(baseUrl).get('/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', database: true, pending_migrations: [] });
  });

  it('GET /ready answers 503 listing every migration folder, in order, on an unmigrated database; 200 once migrated', async () => {
    const bare = await startTestApp({ migrate: false, monitors: false });
    const url = bare.url;
    try {
      const res = await apiClient(url).get('/ready');
      expect(res.status).toBe(503);
      expect(res.body.status).toBe('not_ready');
      expect(res.body.database).toBe(true);
      const folders = fs.readdirSync(MIGRATIONS_DIR, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
      expect(folders).toContain('20261121000000_init');
      expect(res.body.pending_migrations).toEqual(folders);
      await applyMigrations(bare.dbUrl);
      const after = await apiClient(url).get('/ready');
      expect(after.status).toBe(200);
      expect(after.body).toEqual({ status: 'ready', database: true, pending_migrations: [] });
    } finally {
      await bare.close();
    }
  });
});

describe('request-level errors', () => {
  it('unknown endpoint → 404 / 40400', async () => {
    const res = await api.get('/v1/retail/product/nope');
    expect(res.status).toBe(404);
    expectEnvelope(res.body, 40400);
  });

  it('wrong method → 405 / 40000', async () => {
    const res = await api.get('/v1/retail/product/task_post');
    expect(res.status).toBe(405);
    expectEnvelope(res.body, 40000);
  });

  it('missing, malformed or mismatched authentication → 401 / 40100', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Token abc' }, { authorization: `Basic ${Buffer.from(`someone:${rich.api_key}`).toString('base64')}` }, { authorization: 'Bearer rda_live_wrong' }]) {
      const res = await fetch(`${baseUrl}/v1/retail/product/tasks_ready`, { headers });
      expect(res.status).toBe(401);
      expectEnvelope(await res.json(), 40100);
    }
  });

  it('Bearer with the key alone authenticates', async () => {
    const res = await apiClient(baseUrl, { key: rich.api_key }).get('/v1/retail/product/tasks_ready');
    expect(res.status).toBe(200);
    expectEnvelope(res.body, 20000);
  });

  it('a revoked key → 401 / 40101 at once; a disabled account → 401 / 40102', async () => {
    const a = await createAccount(db, { login: 'revoked', email: 'r@example.com' });
    await prisma.apiKey.updateMany({ where: { account: { login: 'revoked' } }, data: { revokedAt: new Date() } });
    const revoked = await apiClient(baseUrl, { key: a.api_key }).get('/v1/retail/product/tasks_ready');
    expect(revoked.status).toBe(401);
    expectEnvelope(revoked.body, 40101);
    const b = await createAccount(db, { login: 'disabled', email: 'd@example.com' });
    await prisma.account.update({ where: { login: 'disabled' }, data: { disabled: true } });
    const disabled = await apiClient(baseUrl, { login: 'disabled', key: b.api_key }).get('/v1/retail/product/tasks_ready');
    expect(disabled.status).toBe(401);
    expectEnvelope(disabled.body, 40102);
  });

  it('a body over 1 MiB → 413 / 40000', async () => {
    const res = await api.post('/v1/retail/product/task_post', JSON.stringify([{ asin: 'B07CL39Z8Q', marketplace: 'com', tag: 'x'.repeat(1_048_600) }]));
    expect(res.status).toBe(413);
    expectEnvelope(res.body, 40000);
  });

  it('malformed JSON, a non-array, an empty array or a non-object element → 400 / 40000', async () => {
    for (const body of ['{not json', '{"asin":"B07CL39Z8Q"}', '[]', '[1]']) {
      const res = await api.post('/v1/retail/product/task_post', body);
      expect(res.status, body).toBe(400);
      expectEnvelope(res.body, 40000);
    }
  });

  it('more than 100 tasks → 400 / 40001', async () => {
    const res = await api.post('/v1/retail/product/task_post', Array.from({ length: 101 }, () => ({ asin: 'B07CL39Z8Q', marketplace: 'com' })));
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 40001);
  });

  it('live with more than one task → 400 / 40000', async () => {
    const res = await api.post('/v1/retail/product/live', [{ asin: 'B07CL39Z8Q', marketplace: 'com' }, { asin: 'B07CL39Z8Q', marketplace: 'com' }]);
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 40000);
  });

  it('unknown task id → 404 / 40400', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await api.get(`/v1/retail/product/task_get/${id}`);
      expect(res.status).toBe(404);
      expectEnvelope(res.body, 40400);
    }
  });
});

describe('task-level field rules', () => {
  it('bad fields fail only their task (40503, 40502, 40501 naming the field) and are not charged', async () => {
    const before = started.length;
    const res = await api.post('/v1/retail/product/task_post', [
      { asin: 'bad', marketplace: 'com' },
      { asin: 'B07CL39Z8Q', marketplace: 'xx' },
      { asin: 'B07CL39Z8Q', marketplace: 'com', priority: 3 },
      { asin: 'B07CL39Z8Q', marketplace: 'com', tag: 't'.repeat(256) },
      { asin: 'B07CL39Z8Q', marketplace: 'com', postback_url: 'h'.repeat(2049) },
      { marketplace: 'com' },
      { asin: 'b07cl39z8q', marketplace: 'USA', tag: 'ok' },
    ]);
    expect(res.status).toBe(200);
    expectEnvelope(res.body, 20000);
    const codes = res.body.tasks.map((t: any) => [t.status_code, t.status_message]);
    expect(codes).toEqual([
      [40503, 'Invalid ASIN.'],
      [40502, 'Unknown marketplace.'],
      [40501, 'Invalid field: `priority`.'],
      [40501, 'Invalid field: `tag`.'],
      [40501, 'Invalid field: `postback_url`.'],
      [40501, 'Invalid field: `asin`.'],
      [20100, 'Task Created.'],
    ]);
    expect(res.body.tasks_error).toBe(6);
    expect(res.body.cost).toBeCloseTo(price, 9);
    expect(res.body.tasks[6].data).toMatchObject({ asin: 'b07cl39z8q', marketplace: 'USA', tag: 'ok', api: 'retail', function: 'task_post' });
    expect(started.length).toBe(before + 1);
  });

  it('when no task of the request is valid, the request fails with HTTP 400 and the first task\'s code', async () => {
    for (const [body, code, message] of [
      [[{ asin: 'bad', marketplace: 'com' }, { asin: 'B07CL39Z8Q', marketplace: 'xx' }], 40503, 'Invalid ASIN.'],
      [[{ asin: 'B07CL39Z8Q', marketplace: 'xx' }], 40502, 'Unknown marketplace.'],
      [[{ asin: 'B07CL39Z8Q', marketplace: 'com', tag: 5 }], 40501, 'Invalid field: `tag`.'],
    ] as const) {
      const res = await api.post('/v1/retail/product/task_post', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status_code: code, status_message: message, cost: 0 });
    }
  });

  it('live and history name their own bad fields', async () => {
    // live carries one task: an invalid one fails the request (HTTP 400), naming the field.
    const live = await api.post('/v1/retail/product/live', [{ asin: 'B07CL39Z8Q', marketplace: 'com', max_age_minutes: 43201 }]);
    expect(live.status).toBe(400);
    expect(live.body).toMatchObject({ status_code: 40501, status_message: 'Invalid field: `max_age_minutes`.', tasks: [] });
    const history = await api.post('/v1/retail/product/history', [
      { asin: 'B07CL39Z8Q', marketplace: 'com', limit: 0 },
      { asin: 'B07CL39Z8Q', marketplace: 'com', date_from: '2026-13-01' },
      { asin: 'B07CL39Z8Q', marketplace: 'com', offset: 1_000_001 },
      { asin: 'B07CL39Z8Q', marketplace: 'com' },
    ]);
    expect(history.body.tasks.map((t: any) => t.status_message)).toEqual([
      'Invalid field: `limit`.', 'Invalid field: `date_from`.', 'Invalid field: `offset`.', 'Ok.',
    ]);
    expect(history.body.tasks[3].result).toEqual([]);
    expect(history.body.cost).toBeCloseTo(PLANS.standard!.rates.history, 9);
  });
});

describe('webhook URLs at task_post', () => {
  const rich = async () => Number((await prisma.account.findUniqueOrThrow({ where: { login: 'rich' } })).balance);

  it('a URL breaking the Security rules fails its task with 40501 naming the field, not charged; valid URLs go with the task', async () => {
    const before = await rich();
    const task = { asin: 'B07CL39Z8Q', marketplace: 'com' };
    const res = await api.post('/v1/retail/product/task_post', [
      { ...task, postback_url: 'http://127.0.0.1/hook' },
      { ...task, pingback_url: 'http://localhost/ping?id=$id' },
      { ...task, postback_url: 'https://user:pw@hooks.example.com/' },
      { ...task, pingback_url: 'ftp://hooks.example.com/' },
      { ...task, postback_url: 'http://[::ffff:169.254.169.254]/' },
      { ...task, pingback_url: 'https://hooks.example.com/a\nb' },
      { ...task, tag: 'x', postback_url: 'https://hooks.example.com/post', pingback_url: 'https://hooks.example.com/ping?id=$id&tag=$tag' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.tasks.map((t: any) => t.status_message)).toEqual([
      'Invalid field: `postback_url`.', 'Invalid field: `pingback_url`.', 'Invalid field: `postback_url`.', 'Invalid field: `pingback_url`.',
      'Invalid field: `postback_url`.', 'Invalid field: `pingback_url`.', 'Task Created.',
    ]);
    expect(res.body.tasks.slice(0, 6).every((t: any) => t.status_code === 40501 && t.cost === 0)).toBe(true);
    expect(res.body.cost).toBeCloseTo(price, 9);
    expect(await rich()).toBeCloseTo(before - price, 9);
    const created = res.body.tasks[6].id;
    expect(webhookStarts).toContainEqual({ taskId: created, kinds: ['postback', 'pingback'], from: 'productTask' });
    expect(webhookStarts.some((w) => res.body.tasks.slice(0, 6).some((t: any) => t.id === w.taskId))).toBe(false);
  });

  it('a task completed at once from the reuse window starts its webhook deliveries from the API', async () => {
    await storeObservation(db, {
      asin: 'B0000WEBH1', marketplace: 'com', url: 'https://www.amazon.com/dp/B0000WEBH1', observed_at: new Date().toISOString(), status: 'ok',
      title: 'Hooked', byline: [], variant: null, variants: [], price: null, bsr: null, rating: null, ratings_count: null, image_url: null, details: {}, parser_version: 'test', ...version1Fields(),
    });
    const startsBefore = started.length;
    const res = await api.post('/v1/retail/product/task_post', [{ asin: 'B0000WEBH1', marketplace: 'com', postback_url: 'https://hooks.example.com/post' }]);
    const id = res.body.tasks[0].id;
    expect(started.length).toBe(startsBefore);
    expect(webhookStarts).toContainEqual({
      taskId: id, kinds: ['postback'], accountId: expect.any(Number), asin: 'B0000WEBH1', marketplace: 'com', tag: null,
      urls: { postback: 'https://hooks.example.com/post', pingback: null }, from: 'api',
    });
    // The task stays in tasks_ready: starting its webhook does not collect it.
    const ready = await api.get('/v1/retail/product/tasks_ready');
    expect(ready.body.tasks[0].result.map((r: any) => r.id)).toContain(id);
  });
});

describe('balance', () => {
  it('HTTP 402 / 40200 when the balance covers no task of the request; nothing is charged', async () => {
    const poor = await createAccount(db, { login: 'poor', email: 'p@example.com', balance: 0 });
    const res = await apiClient(baseUrl, { key: poor.api_key }).post('/v1/retail/product/task_post', [{ asin: 'B07CL39Z8Q', marketplace: 'com' }]);
    expect(res.status).toBe(402);
    expectEnvelope(res.body, 40200);
    expect(res.body.cost).toBe(0);
  });

  it('only the unaffordable tasks fail with 40200; the envelope cost is the sum of the tasks charged', async () => {
    const some = await createAccount(db, { login: 'some', email: 's@example.com', balance: price * 2 });
    const res = await apiClient(baseUrl, { key: some.api_key }).post('/v1/retail/product/task_post', Array.from({ length: 3 }, () => ({ asin: 'B07CL39Z8Q', marketplace: 'de' })));
    expect(res.status).toBe(200);
    expect(res.body.tasks.map((t: any) => t.status_code)).toEqual([20100, 20100, 40200]);
    expect(res.body.cost).toBeCloseTo(price * 2, 9);
    const account = await prisma.account.findUniqueOrThrow({ where: { login: 'some' } });
    expect(Number(account.balance)).toBe(0);
  });

  it('a live read that runs out of budget answers 50301 and refunds the charge', async () => {
    const before = Number((await prisma.account.findUniqueOrThrow({ where: { login: 'rich' } })).balance);
    const res = await api.post('/v1/retail/product/live', [{ asin: 'B000000001', marketplace: 'com', max_age_minutes: 0 }]);
    expect(res.body.tasks[0]).toMatchObject({ status_code: 50301, cost: 0, result: null });
    expect(Number((await prisma.account.findUniqueOrThrow({ where: { login: 'rich' } })).balance)).toBeCloseTo(before, 9);
  });
});
