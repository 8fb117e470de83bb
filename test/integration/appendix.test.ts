/**
 * Appendix endpoints (api-spec.md "Appendix endpoints", "API key status", "Authentication" 3):
 * keys create/revoke, user_data, marketplaces, errors — over HTTP against buildApp on a real
 * embedded PostgreSQL (PGlite). Workflow starts go to a recording launcher.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { hashApiKey } from '../../core/api-keys.js';
import type { Db } from '../../core/db/db.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { PLANS } from '../../core/pricing.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { apiClient, type ApiClient } from '../support/http.js';

const KEY_RE = /^rda_live_[A-Za-z0-9_-]{40}$/;
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

function expectEnvelope(body: any, code: number) {
  expect(body).toMatchObject({ version: expect.any(String), status_code: code, status_message: expect.any(String), cost: expect.any(Number) });
  expect(body.time).toMatch(/^\d+\.\d{4} sec\.$/);
  expect(body.tasks_count).toBe(body.tasks.length);
}

async function del(key: string, keyPath: string): Promise<{ status: number; body: any }> {
  const res = await fetch(baseUrl + keyPath, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: await res.json() };
}

async function account(login: string, balance = 10): Promise<{ id: number; key: string; api: ApiClient }> {
  const a = await createAccount(db, { login, email: `${login}@example.com`, balance });
  return { id: a.id, key: a.api_key, api: apiClient(baseUrl, { login, key: a.api_key }) };
}

describe('POST /v1/appendix/keys', () => {
  it('creates one key per task; the full key is shown once and authenticates at once', async () => {
    const { api } = await account('keys1');
    const res = await api.post('/v1/appendix/keys', [{ label: 'ci' }, {}, { label: null }]);
    expect(res.status).toBe(200);
    expectEnvelope(res.body, 20000);
    expect(res.body.cost).toBe(0);
    expect(res.body.tasks.map((t: any) => t.status_code)).toEqual([20000, 20000, 20000]);
    const first = res.body.tasks[0];
    expect(first.path).toEqual(['v1', 'appendix', 'keys']);
    expect(first.data).toEqual({ label: 'ci', api: 'appendix', function: 'keys' });
    expect(first.result_count).toBe(1);
    const created = first.result[0];
    expect(Object.keys(created).sort()).toEqual(['created_at', 'id', 'key', 'label', 'last4', 'prefix']);
    expect(created.key).toMatch(KEY_RE);
    expect(created).toMatchObject({ id: expect.any(Number), prefix: 'rda_live_', last4: created.key.slice(-4), label: 'ci' });
    expect(new Date(created.created_at).toISOString()).toBe(created.created_at);
    expect(res.body.tasks[1].result[0].label).toBeNull();

    const stored = await prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(stored.keyHash).toBe(hashApiKey(created.key));
    expect(JSON.stringify(stored)).not.toContain(created.key);

    const bearer = await apiClient(baseUrl, { key: created.key }).get('/v1/appendix/user_data');
    expect(bearer.status).toBe(200);
    expect(bearer.body.tasks[0].result[0].login).toBe('keys1');
    const listed = bearer.body.tasks[0].result[0].api_keys;
    expect(listed).toHaveLength(4);
    const text = JSON.stringify(bearer.body);
    for (const t of res.body.tasks) {
      expect(text).not.toContain(t.result[0].key);
      expect(text).not.toContain(hashApiKey(t.result[0].key));
    }
    for (const k of listed) expect(Object.keys(k).sort()).toEqual(['created_at', 'id', 'label', 'last4', 'prefix']);
  });

  it('a bad label fails only its task with 40501 naming `label`', async () => {
    const { api } = await account('keys2');
    const res = await api.post('/v1/appendix/keys', [{ label: 'x'.repeat(101) }, { label: 5 }, { label: 'y'.repeat(100) }]);
    expect(res.status).toBe(200);
    expectEnvelope(res.body, 20000);
    expect(res.body.tasks.map((t: any) => [t.status_code, t.status_message])).toEqual([
      [40501, 'Invalid field: `label`.'],
      [40501, 'Invalid field: `label`.'],
      [20000, 'Ok.'],
    ]);
    expect(res.body.tasks_error).toBe(2);
    expect(res.body.tasks[0].result).toBeNull();
    const none = await api.post('/v1/appendix/keys', [{ label: 'x'.repeat(101) }]);
    expect(none.status).toBe(400);
    expectEnvelope(none.body, 40501);
    expect(none.body.status_message).toBe('Invalid field: `label`.');
  });

  it('a body that is not an array of 1..100 objects is refused at request level', async () => {
    const { api } = await account('keys3');
    for (const [body, code] of [[{ label: 'a' }, 40000], [[], 40000], [Array.from({ length: 101 }, () => ({})), 40001]] as const) {
      const res = await api.post('/v1/appendix/keys', body);
      expect(res.status).toBe(400);
      expectEnvelope(res.body, code);
    }
  });

  it('at most 20 active keys: the tasks over the limit fail with 40000', async () => {
    const { id, api } = await account('keys4');
    const res = await api.post('/v1/appendix/keys', Array.from({ length: 21 }, (_, i) => ({ label: `k${i}` })));
    expect(res.status).toBe(200);
    const codes = res.body.tasks.map((t: any) => t.status_code);
    expect(codes.slice(0, 19)).toEqual(Array(19).fill(20000));
    expect(codes.slice(19)).toEqual([40000, 40000]);
    expect(res.body.tasks[19].result).toBeNull();
    expect(res.body.tasks_error).toBe(2);
    expect(await prisma.apiKey.count({ where: { accountId: id, revokedAt: null } })).toBe(20);
  });

  it('concurrent creations never exceed 20 active keys', async () => {
    const { id, api } = await account('keys5');
    const results = await Promise.all(Array.from({ length: 25 }, () => api.post('/v1/appendix/keys', [{}])));
    const codes = results.map((r) => r.body.tasks[0].status_code);
    expect(codes.filter((c) => c === 20000)).toHaveLength(19);
    expect(codes.filter((c) => c === 40000)).toHaveLength(6);
    expect(await prisma.apiKey.count({ where: { accountId: id, revokedAt: null } })).toBe(20);
  });
});

describe('DELETE /v1/appendix/keys/{key_id}', () => {
  it('revokes a key; that key fails with 40101 on the very next request', async () => {
    const { key } = await account('rev1');
    const made = await apiClient(baseUrl, { key }).post('/v1/appendix/keys', [{ label: 'second' }]);
    const second = made.body.tasks[0].result[0];
    expect((await apiClient(baseUrl, { key: second.key }).get('/v1/appendix/user_data')).status).toBe(200);

    const res = await del(key, `/v1/appendix/keys/${second.id}`);
    expect(res.status).toBe(200);
    expectEnvelope(res.body, 20000);
    expect(res.body.tasks[0]).toMatchObject({ status_code: 20000, path: ['v1', 'appendix', 'keys', String(second.id)], data: { key_id: second.id, api: 'appendix', function: 'keys' } });
    expect(res.body.tasks[0].result[0]).toMatchObject({ id: second.id, last4: second.key.slice(-4), label: 'second', revoked_at: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toContain(second.key);

    const after = await apiClient(baseUrl, { key: second.key }).get('/v1/appendix/user_data');
    expect(after.status).toBe(401);
    expectEnvelope(after.body, 40101);
    const listed = (await apiClient(baseUrl, { key }).get('/v1/appendix/user_data')).body.tasks[0].result[0].api_keys;
    expect(listed.map((k: any) => k.id)).not.toContain(second.id);

    const again = await del(key, `/v1/appendix/keys/${second.id}`);
    expect(again.status).toBe(404);
    expectEnvelope(again.body, 40400);
  });

  it('the only active key cannot revoke itself (task-level 40000); with another key it can', async () => {
    const { key } = await account('rev2');
    const own = (await prisma.apiKey.findFirstOrThrow({ where: { keyHash: hashApiKey(key) } })).id;
    const refused = await del(key, `/v1/appendix/keys/${own}`);
    expect(refused.status).toBe(200);
    expectEnvelope(refused.body, 20000);
    expect(refused.body.tasks[0]).toMatchObject({ status_code: 40000, result: null });
    expect(refused.body.tasks_error).toBe(1);
    expect((await apiClient(baseUrl, { key }).get('/v1/appendix/user_data')).status).toBe(200);

    const spare = (await apiClient(baseUrl, { key }).post('/v1/appendix/keys', [{}])).body.tasks[0].result[0];
    const ok = await del(key, `/v1/appendix/keys/${own}`);
    expect(ok.body.tasks[0].status_code).toBe(20000);
    const self = await apiClient(baseUrl, { key }).get('/v1/appendix/user_data');
    expect(self.status).toBe(401);
    expectEnvelope(self.body, 40101);
    expect((await apiClient(baseUrl, { key: spare.key }).get('/v1/appendix/user_data')).status).toBe(200);
  });

  it('an id that is not one of the account\'s active keys → 404 / 40400', async () => {
    const { key } = await account('rev3');
    const other = await account('rev3other');
    const otherId = (await prisma.apiKey.findFirstOrThrow({ where: { accountId: other.id } })).id;
    for (const id of [otherId, 2_000_000_000]) {
      const res = await del(key, `/v1/appendix/keys/${id}`);
      expect(res.status).toBe(404);
      expectEnvelope(res.body, 40400);
    }
    expect((await other.api.get('/v1/appendix/user_data')).status).toBe(200);
  });

  it('a key_id that is not an integer ≥ 1 → 400 / 40501 naming key_id', async () => {
    const { key } = await account('rev4');
    for (const id of ['abc', '0', '-1', '1.5', '01', '99999999999']) {
      const res = await del(key, `/v1/appendix/keys/${id}`);
      expect(res.status, id).toBe(400);
      expectEnvelope(res.body, 40501);
      expect(res.body.status_message).toBe('Invalid field: `key_id`.');
    }
  });

  it('requires authentication', async () => {
    const res = await fetch(`${baseUrl}/v1/appendix/keys/1`, { method: 'DELETE' });
    expect(res.status).toBe(401);
    expectEnvelope(await res.json(), 40100);
  });
});

describe('GET /v1/appendix/user_data', () => {
  it('reports the account, limits, rates, usage, keys and webhook secret', async () => {
    const { id, api } = await account('ud1', 12.5);
    const res = await api.get('/v1/appendix/user_data');
    expect(res.status).toBe(200);
    expectEnvelope(res.body, 20000);
    expect(res.body.cost).toBe(0);
    const task = res.body.tasks[0];
    expect(task).toMatchObject({ status_code: 20000, path: ['v1', 'appendix', 'user_data'], data: { api: 'appendix', function: 'user_data' }, result_count: 1 });
    const stored = await prisma.account.findUniqueOrThrow({ where: { id } });
    const plan = PLANS.standard!;
    expect(task.result[0]).toEqual({
      login: 'ud1',
      email: 'ud1@example.com',
      balance: 12.5,
      plan: 'standard',
      limits: { requests_per_minute: plan.requestsPerMinute, tasks_per_minute: plan.tasksPerMinute },
      rates: plan.rates,
      usage: { today: { requests: 0, tasks: 0, cost: 0 }, this_month: { requests: 0, tasks: 0, cost: 0 } },
      api_keys: [{ id: expect.any(Number), prefix: 'rda_live_', last4: expect.stringMatching(/^[A-Za-z0-9_-]{4}$/), label: 'initial', created_at: expect.any(String) }],
      webhook_secret: stored.webhookSecret,
    });
  });

  it('per-account limit overrides replace the plan defaults; usage counts earlier calls', async () => {
    const { id, api } = await account('ud2');
    await prisma.account.update({ where: { id }, data: { requestsPerMinute: 42 } });
    await api.get('/v1/appendix/errors');
    await api.get('/v1/appendix/marketplaces');
    const result = (await api.get('/v1/appendix/user_data')).body.tasks[0].result[0];
    expect(result.limits).toEqual({ requests_per_minute: 42, tasks_per_minute: PLANS.standard!.tasksPerMinute });
    expect(result.usage.today).toEqual({ requests: 2, tasks: 2, cost: 0 });
    expect(result.usage.this_month).toEqual({ requests: 2, tasks: 2, cost: 0 });
  });

  it('requires authentication', async () => {
    const res = await apiClient(baseUrl).get('/v1/appendix/user_data');
    expect(res.status).toBe(401);
    expectEnvelope(res.body, 40100);
  });
});

describe('GET /v1/appendix/marketplaces and /v1/appendix/errors', () => {
  it('marketplaces: the 12 marketplaces with domain, currency, language and aliases, without auth', async () => {
    const res = await apiClient(baseUrl).get('/v1/appendix/marketplaces');
    expect(res.status).toBe(200);
    expectEnvelope(res.body, 20000);
    const rows = res.body.tasks[0].result;
    expect(rows).toHaveLength(12);
    expect(res.body.tasks[0].result_count).toBe(12);
    for (const row of rows) expect(Object.keys(row).sort()).toEqual(['aliases', 'code', 'currency', 'domain', 'language']);
    expect(rows.find((r: any) => r.code === 'com')).toEqual({ code: 'com', domain: 'www.amazon.com', currency: 'USD', language: 'en_US', aliases: ['us', 'usa'] });
    expect(rows.find((r: any) => r.code === 'uk').aliases).toEqual(['gb']);
    expect(rows.find((r: any) => r.code === 'de')).toMatchObject({ currency: 'EUR', aliases: [] });
  });

  it('errors: 18 rows with request-level HTTP statuses, free, without auth', async () => {
    const res = await apiClient(baseUrl).get('/v1/appendix/errors');
    expect(res.status).toBe(200);
    expectEnvelope(res.body, 20000);
    expect(res.body.cost).toBe(0);
    expect(res.body.tasks[0].cost).toBe(0);
    const rows = res.body.tasks[0].result;
    expect(rows).toHaveLength(18);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['description', 'http_status', 'status_code', 'status_message']);
      expect(row.description.length).toBeGreaterThan(0);
    }
    const http = Object.fromEntries(rows.map((r: any) => [r.status_code, r.http_status]));
    expect(http).toMatchObject({ 20000: 200, 40000: 400, 40200: 402, 40202: 429, 40400: 404, 40401: 200, 40501: 400, 40502: 400, 40503: 400, 50301: 503 });
    expect(rows.find((r: any) => r.status_code === 40501).status_message).toBe('Invalid field: `<name>`.');
  });

  it('an invalid key sent to an optional-auth endpoint → 401 / 40100; a revoked one → 40101', async () => {
    for (const p of ['/v1/appendix/errors', '/v1/appendix/marketplaces']) {
      const res = await apiClient(baseUrl, { key: 'rda_live_nope' }).get(p);
      expect(res.status).toBe(401);
      expectEnvelope(res.body, 40100);
    }
    const { id, key } = await account('opt1');
    await prisma.apiKey.updateMany({ where: { accountId: id }, data: { revokedAt: new Date() } });
    const revoked = await apiClient(baseUrl, { key }).get('/v1/appendix/errors');
    expect(revoked.status).toBe(401);
    expectEnvelope(revoked.body, 40101);
  });

  it('a valid key sent to errors is metered (free)', async () => {
    const { api } = await account('opt2');
    expect((await api.get('/v1/appendix/errors')).status).toBe(200);
    const usage = (await api.get('/v1/appendix/usage')).body.tasks[0].result[0];
    expect(usage.endpoints).toEqual([{ endpoint: 'errors', requests: 1, tasks: 1, cost: 0 }]);
  });

  it('a wrong method → 405 / 40000', async () => {
    const res = await apiClient(baseUrl).post('/v1/appendix/errors', []);
    expect(res.status).toBe(405);
    expectEnvelope(res.body, 40000);
  });
});
