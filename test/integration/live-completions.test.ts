/**
 * A live read answers once its read has completed the task (core/task-completions.ts): under
 * `npm start` (scripts/stack.ts) the worker tells the API of its process, and the launcher's
 * `waitFor` ends then instead of when the workflow has closed. Real Temporal dev server, real
 * Chromium, PGlite, the synthetic replay pages as the marketplace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { newTaskId } from '../../core/ids.js';
import { TaskCompletions } from '../../core/task-completions.js';
import { temporalTaskLauncher } from '../../core/temporal/task-launcher.js';
import { apiClient } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

describe('live reads answer when their read completed the task', () => {
  let running: TestStack;

  beforeAll(async () => {
    running = await startTestStack({ env: { REUSE_WINDOW: '0s' } });
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
  });

  it('a fresh live read on the API of `npm start` answers 20000 with its product', { timeout: 120_000 }, async () => {
    const { api_key: key } = await createAccount(running.stack.db, { login: 'news', email: 'news@example.com', balance: 10 });
    const res = await apiClient(running.stack.api.url, { key }).post('/v1/retail/product/live', [{ asin: 'B0000000P1', marketplace: 'de', max_age_minutes: 0 }]);
    expect(res.status).toBe(200);
    expect(res.body.tasks[0]).toMatchObject({ status_code: 20000, result: [{ asin: 'B0000000P1', marketplace: 'de' }] });
    const row = await running.stack.db.prisma.task.findUnique({ where: { id: res.body.tasks[0].id as string }, select: { state: true, statusCode: true } });
    expect(row).toEqual({ state: 'completed', statusCode: 20000 });
  });

  it('waitFor ends on the news while the workflow still runs; without news it ends with the workflow or the budget', { timeout: 60_000 }, async () => {
    // A queue no worker polls: the workflows stay open, so only the news can end a wait early.
    const config = { ...running.stack.config, TEMPORAL_TASK_QUEUE: 'live-completions-unpolled' };
    const completions = new TaskCompletions();
    const launcher = temporalTaskLauncher(running.client, config, { completions });
    const [told, silent, early] = [newTaskId(), newTaskId(), newTaskId()];
    for (const taskId of [told, silent, early]) await launcher.start({ taskId, asin: 'B0000000P1', marketplace: 'de', urgency: 'live' });

    const t0 = Date.now();
    setTimeout(() => completions.completed(told), 200);
    expect(await launcher.waitFor(told, 30_000)).toBe(true);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect((await running.client.workflow.getHandle(told).describe()).status.name).toBe('RUNNING');

    expect(await launcher.waitFor(silent, 500)).toBe(false);

    completions.completed(early);
    expect(await launcher.waitFor(early, 30_000)).toBe(true);
    expect(completions.pending).toBe(0);
    for (const taskId of [told, silent, early]) await running.client.workflow.getHandle(taskId).terminate('test over');
  });
});
