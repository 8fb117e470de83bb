/**
 * GET /health (liveness plus queue visibility: queued tasks per priority and the oldest one's age)
 * over HTTP against buildApp on PGlite, and both /health and /ready when the database is down.
 * /ready on an unmigrated and a migrated database: api-errors.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { newTaskId } from '../../core/ids.js';
import { API_VERSION } from '../../core/version.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { apiClient } from '../support/http.js';

const MINUTE = 60_000;
let app: TestApp;

beforeAll(async () => { app = await startTestApp({ database: 'pglite' }); });
afterAll(async () => { await app?.close(); });

async function seedTask(accountId: number, state: string, priority: number, minutesAgo: number) {
  const createdAt = new Date(Date.now() - minutesAgo * MINUTE);
  await app.prisma.task.create({
    data: {
      id: newTaskId(createdAt), accountId, endpoint: 'task_post', asin: 'B07CL39Z8Q', marketplace: 'com', priority, data: {}, state, createdAt,
      completedAt: state === 'completed' ? new Date() : null, expiresAt: new Date(Date.now() + 30 * 24 * 60 * MINUTE),
    },
  });
}

describe('GET /health', () => {
  it('answers liveness without authentication; an empty queue has no oldest age', async () => {
    const res = await apiClient(app.url).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok', version: API_VERSION, uptime_seconds: expect.any(Number), database: true,
      queue: { queued_tasks: {}, oldest_queued_age_seconds: null },
    });
    expect(res.body.uptime_seconds).toBeGreaterThanOrEqual(0);
  });

  it('counts queued and running tasks per priority and gives the oldest one\'s age; finished tasks do not count', async () => {
    const { id } = await createAccount(app.db, { login: 'health', email: 'h@example.com', balance: 0 });
    await seedTask(id, 'queued', 1, 2);
    await seedTask(id, 'running', 1, 5);
    await seedTask(id, 'queued', 2, 10);
    await seedTask(id, 'completed', 2, 60);
    await seedTask(id, 'failed', 1, 120);
    const res = await apiClient(app.url).get('/health');
    expect(res.status).toBe(200);
    expect(res.body.queue.queued_tasks).toEqual({ 1: 2, 2: 1 });
    const age = res.body.queue.oldest_queued_age_seconds;
    expect(age).toBeGreaterThanOrEqual(600);
    expect(age).toBeLessThan(660);
  });
});

describe('when the database is down', () => {
  it('/health still answers 200 with database: false; /ready answers 503', async () => {
    const down = await startTestApp({ database: 'down', monitors: false });
    const api = apiClient(down.url);
    try {
      const health = await api.get('/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'ok', database: false, queue: { queued_tasks: {}, oldest_queued_age_seconds: null } });
      const ready = await api.get('/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'not_ready', database: false, pending_migrations: [] });
    } finally {
      await down.close();
    }
  });
});
