/**
 * GET /metrics on the API port with METRICS_TOKEN (its Bearer token sent): Prometheus text with
 * requests and latency by route and tasks by state. (Who may scrape it, and where: caching.test.ts.)
 * (Source reads by marketplace and outcome are counted where pages are read: the walk-through
 * checks them here under one process, worker-metrics.test.ts on the worker's own listener.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { apiClient } from '../support/http.js';

const METRICS_TOKEN = 'metrics-test-token';
let app: TestApp;
beforeAll(async () => { app = await startTestApp({ database: 'pglite', env: { METRICS_TOKEN } }); });
afterAll(async () => { await app?.close(); });

describe('GET /metrics', () => {
  it('counts requests by route pattern and reports tasks by state', async () => {
    const { api_key } = await createAccount(app.db, { login: 'metrics', email: 'm@example.com', balance: 1 });
    const api = apiClient(app.url, { key: api_key });
    await api.post('/v1/retail/product/task_post', [{ asin: 'B07CL39Z8Q', marketplace: 'com' }, { asin: 'B07CL39Z8Q', marketplace: 'de' }]);
    await api.get('/v1/retail/product/task_get/00000000-0000-4000-8000-000000000000');
    const res = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toMatch(/retail_http_requests_total\{method="POST",route="\/v1\/retail\/product\/task_post",status="200"\} 1/);
    expect(text).toMatch(/retail_http_requests_total\{method="GET",route="\/v1\/retail\/product\/task_get\/:id",status="404"\} 1/);
    expect(text).toContain('retail_http_request_duration_seconds_bucket');
    expect(text).toMatch(/retail_tasks\{endpoint="task_post",state="queued"\} 2/);
  });
});
