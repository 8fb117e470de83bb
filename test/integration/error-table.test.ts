/**
 * Every row of api-spec.md "Errors", at each level the table names, provoked the way a user would
 * (request level: the envelope's status_code with the row's HTTP status; task level: a task's
 * status_code inside an HTTP 200 envelope). The last test checks that every row and level was hit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { storeObservation } from '../../core/observations.js';
import { STATUS_CODES } from '../../core/domain/status-codes.js';
import { failTask } from '../../core/tasks.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { apiClient, type ApiClient } from '../support/http.js';
import { version1Fields } from '../../core/product.js';

let app: TestApp;
let api: ApiClient;
let apiKey: string;
const seen = new Set<string>();

/** Asserts a request-level answer and records the row as covered. */
function requestLevel(res: { status: number; body: any }, code: number, http: number) {
  expect(res.status).toBe(http);
  expect(res.body.status_code).toBe(code);
  expect(res.body.tasks).toEqual([]);
  seen.add(`${code}/request`);
}

/** Asserts a task-level answer (HTTP 200) and records the row as covered. */
function taskLevel(res: { status: number; body: any }, code: number, index = 0) {
  expect(res.status).toBe(200);
  expect(res.body.status_code).toBe(20000);
  expect(res.body.tasks[index].status_code).toBe(code);
  seen.add(`${code}/task`);
}

const NOT_FOUND_ASIN = 'NOTHERE001';

beforeAll(async () => {
  app = await startTestApp({ database: 'pglite', env: { LIVE_BUDGET: '300ms' } });
  ({ api_key: apiKey } = await createAccount(app.db, { login: 'table', email: 'table@example.com', balance: 5 }));
  api = apiClient(app.url, { login: 'table', key: apiKey });
  const base = { url: '', observed_at: new Date().toISOString(), title: null, byline: [], variant: null, variants: [], price: null, bsr: null, rating: null, ratings_count: null, image_url: null, details: {}, parser_version: 'test', ...version1Fields() };
  await storeObservation(app.db, { ...base, asin: NOT_FOUND_ASIN, marketplace: 'com', url: `https://www.amazon.com/dp/${NOT_FOUND_ASIN}`, status: 'not_found' });
  await storeObservation(app.db, { ...base, asin: 'B07CL39Z8Q', marketplace: 'com', url: 'https://www.amazon.com/dp/B07CL39Z8Q', status: 'no_bsr', title: 'A product' });
});

afterAll(async () => { await app?.close(); });

describe('api-spec.md "Errors", row by row', () => {
  it('20000 Ok: request level and task level', async () => {
    const res = await api.post('/v1/retail/product/task_post', [{ asin: 'B07CL39Z8Q', marketplace: 'com' }]);
    expect(res.body.status_code).toBe(20000);
    seen.add('20000/request');
    const got = await api.get(`/v1/retail/product/task_get/${res.body.tasks[0].id}`); // completed at once from the stored observation
    taskLevel(got, 20000);
    expect(got.body.tasks[0].result[0].title).toBe('A product');
  });

  it('20100 Task Created: task level', async () => {
    taskLevel(await api.post('/v1/retail/product/task_post', [{ asin: 'B000000123', marketplace: 'de' }]), 20100);
  });

  it('40000 Bad Request: request level (body, 413, 405) and task level (key limit, last key)', async () => {
    requestLevel(await api.post('/v1/retail/product/task_post', '{"asin":'), 40000, 400);
    requestLevel(await api.post('/v1/retail/product/history', JSON.stringify([{ asin: 'B07CL39Z8Q', marketplace: 'com', pad: 'x'.repeat(1_048_576) }])), 40000, 413);
    requestLevel(await api.get('/v1/retail/product/live'), 40000, 405);
    const { api_key } = await createAccount(app.db, { login: 'keys', email: 'k@example.com' });
    const keys = apiClient(app.url, { key: api_key });
    const created = await keys.post('/v1/appendix/keys', Array.from({ length: 20 }, (_, i) => ({ label: `k${i}` })));
    expect(created.body.tasks.filter((t: any) => t.status_code === 20000)).toHaveLength(19);
    taskLevel(created, 40000, 19);
    const { api_key: lone } = await createAccount(app.db, { login: 'lone', email: 'l@example.com' });
    const loneApi = apiClient(app.url, { key: lone });
    const own = (await loneApi.get('/v1/appendix/user_data')).body.tasks[0].result[0].api_keys[0].id;
    const res = await fetch(`${app.url}/v1/appendix/keys/${own}`, { method: 'DELETE', headers: { authorization: `Bearer ${lone}` } });
    taskLevel({ status: res.status, body: await res.json() }, 40000);
  });

  it('40001 Too many tasks: request level', async () => {
    requestLevel(await api.post('/v1/retail/product/task_post', Array.from({ length: 101 }, () => ({ asin: 'B07CL39Z8Q', marketplace: 'com' }))), 40001, 400);
  });

  it('40100 / 40101 / 40102 authentication: request level', async () => {
    requestLevel(await apiClient(app.url).get('/v1/appendix/user_data'), 40100, 401);
    const { api_key } = await createAccount(app.db, { login: 'gone', email: 'g@example.com' });
    await app.prisma.apiKey.updateMany({ where: { account: { login: 'gone' } }, data: { revokedAt: new Date() } });
    requestLevel(await apiClient(app.url, { key: api_key }).get('/v1/appendix/user_data'), 40101, 401);
    const off = await createAccount(app.db, { login: 'off', email: 'o@example.com' });
    await app.prisma.account.update({ where: { login: 'off' }, data: { disabled: true } });
    requestLevel(await apiClient(app.url, { key: off.api_key }).get('/v1/appendix/user_data'), 40102, 401);
  });

  it('40200 Payment Required: request level (402) and task level', async () => {
    const poor = await createAccount(app.db, { login: 'poor', email: 'p@example.com', balance: 0.002 });
    const poorApi = apiClient(app.url, { key: poor.api_key });
    taskLevel(await poorApi.post('/v1/retail/product/task_post', [{ asin: 'B000000124', marketplace: 'uk' }, { asin: 'B000000125', marketplace: 'uk' }]), 40200, 1);
    requestLevel(await poorApi.post('/v1/retail/product/task_post', [{ asin: 'B000000126', marketplace: 'uk' }]), 40200, 402);
  });

  it('40202 Rate limit exceeded: request level with Retry-After (account and access requests)', async () => {
    const fast = await createAccount(app.db, { login: 'fast', email: 'f@example.com', balance: 1 });
    await app.prisma.account.update({ where: { login: 'fast' }, data: { requestsPerMinute: 1 } });
    const fastApi = apiClient(app.url, { key: fast.api_key });
    await fastApi.get('/v1/appendix/user_data');
    const limited = await fastApi.get('/v1/appendix/user_data');
    requestLevel(limited, 40202, 429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const anonymous = apiClient(app.url);
    for (let i = 0; i < 5; i++) expect((await anonymous.post('/v1/public/access_request', { email: `a${i}@example.com` })).status).toBe(200);
    requestLevel(await anonymous.post('/v1/public/access_request', { email: 'a6@example.com' }), 40202, 429);
  });

  it('40400 Not Found: request level (endpoint, task id, key id)', async () => {
    requestLevel(await api.get('/v1/nothing/here'), 40400, 404);
    requestLevel(await api.get('/v1/retail/product/task_get/00000000-0000-4000-8000-000000000000'), 40400, 404);
    const res = await fetch(`${app.url}/v1/appendix/keys/999999`, { method: 'DELETE', headers: { authorization: `Bearer ${apiKey}` } });
    requestLevel({ status: res.status, body: await res.json() }, 40400, 404);
  });

  it('40401 Task not ready yet: task level', async () => {
    const post = await api.post('/v1/retail/product/task_post', [{ asin: 'B000000127', marketplace: 'fr' }]);
    taskLevel(await api.get(`/v1/retail/product/task_get/${post.body.tasks[0].id}`), 40401);
  });

  it('40402 Product not found: task level, not charged', async () => {
    const live = await api.post('/v1/retail/product/live', [{ asin: NOT_FOUND_ASIN, marketplace: 'com' }]);
    taskLevel(live, 40402);
    expect(live.body.cost).toBe(0);
  });

  it('40501 Invalid field: request level (no valid task; public bodies) and task level', async () => {
    requestLevel(await api.post('/v1/retail/product/task_post', [{ asin: 'B07CL39Z8Q', marketplace: 'com', tag: 7 }]), 40501, 400);
    requestLevel(await apiClient(app.url).post('/v1/public/access_request', { email: 'not-an-email' }), 40501, 400);
    taskLevel(await api.post('/v1/retail/product/task_post', [{ asin: 'B07CL39Z8Q', marketplace: 'com', priority: 9 }, { asin: 'B07CL39Z8Q', marketplace: 'com' }]), 40501);
  });

  it('40502 Unknown marketplace: request level and task level', async () => {
    requestLevel(await api.post('/v1/retail/product/live', [{ asin: 'B07CL39Z8Q', marketplace: 'zz' }]), 40502, 400);
    taskLevel(await api.post('/v1/retail/product/history', [{ asin: 'B07CL39Z8Q', marketplace: 'zz' }, { asin: 'B07CL39Z8Q', marketplace: 'com' }]), 40502);
  });

  it('40503 Invalid ASIN: request level and task level', async () => {
    requestLevel(await api.post('/v1/retail/product/history', [{ asin: 'B07-CL39Z8', marketplace: 'com' }]), 40503, 400);
    taskLevel(await api.post('/v1/retail/product/task_post', [{ asin: 'short', marketplace: 'com' }, { asin: 'B07CL39Z8Q', marketplace: 'com' }]), 40503);
  });

  it('40600 Feature not available on your plan: request level', async () => {
    const basic = await createAccount(app.db, { login: 'basicplan', email: 'bp@example.com', balance: 1, plan: 'basic' });
    requestLevel(await apiClient(app.url, { key: basic.api_key }).post('/v1/retail/product/live', [{ asin: 'B07CL39Z8Q', marketplace: 'com' }]), 40600, 403);
  });

  it('50000 Internal error: request level', async () => {
    const broken = await startTestApp({ database: 'down', monitors: false });
    try {
      requestLevel(await apiClient(broken.url, { key: apiKey }).get('/v1/retail/product/tasks_ready'), 50000, 500);
    } finally {
      await broken.close();
    }
  });

  it('50301 Source temporarily unavailable: task level, refunded (live budget; a failed task_post task)', async () => {
    const live = await api.post('/v1/retail/product/live', [{ asin: 'B000000128', marketplace: 'jp', max_age_minutes: 0 }]);
    taskLevel(live, 50301);
    expect(live.body.cost).toBe(0);
    const post = await api.post('/v1/retail/product/task_post', [{ asin: 'B000000129', marketplace: 'jp' }]);
    await failTask(app.db, post.body.tasks[0].id, 50301); // what the worker does after its last failed read
    const got = await api.get(`/v1/retail/product/task_get/${post.body.tasks[0].id}`);
    taskLevel(got, 50301);
    expect(got.body.tasks[0].cost).toBe(0);
  });

  it('40400 Not Found: task level (an unknown subscription in monitoring/delete)', async () => {
    taskLevel(await api.post('/v1/retail/monitoring/delete', [{ id: 987_654 }]), 40400);
  });

  it('every row and level of the table is covered', () => {
    const expected = [
      '20000/request', '20000/task', '20100/task', '40000/request', '40000/task', '40001/request', '40100/request', '40101/request',
      '40102/request', '40200/request', '40200/task', '40202/request', '40400/request', '40400/task', '40401/task', '40402/task', '40501/request',
      '40501/task', '40502/request', '40502/task', '40503/request', '40503/task', '40600/request', '50000/request', '50301/task',
    ];
    expect([...seen].sort()).toEqual([...expected].sort());
    expect(Object.keys(STATUS_CODES)).toHaveLength(18);
    const codes = new Set(expected.map((e) => Number(e.split('/')[0])));
    expect(Object.values(STATUS_CODES).filter((row) => !codes.has(row.status_code))).toEqual([]);
  });
});
