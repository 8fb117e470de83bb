/**
 * Eager workflow start (core/temporal/task-launcher.ts `eagerStart`). Under `npm start`
 * (scripts/stack.ts) the API's Temporal client shares the in-process worker's connection: a
 * task_post's workflow gets its first workflow task back in the start's answer (the server records
 * `eagerExecutionAccepted` on the workflow's first event) and the task is read and completed as
 * always. A standalone API (its own connection, the compose topology) starts normally and the
 * worker picks its tasks from the server's queue; with the in-process worker stopped, the stack's
 * API still starts workflows (normally: no worker of its process takes them). Whole stack: real
 * Temporal dev server, real Chromium, PGlite, the synthetic replay pages as the marketplace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { startApiServer, type ApiServer } from '../../api/server.js';
import { createLogger } from '../../core/logger.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

/** Product pages of the synthetic replay folder (each completes with 20000). */
const PAGE_A = { asin: 'B0000000P1', marketplace: 'de' };
const PAGE_B = { asin: 'B0000000N1', marketplace: 'com' };

describe('eager workflow start', () => {
  let running: TestStack;
  let standalone: ApiServer;
  let key: string;

  beforeAll(async () => {
    running = await startTestStack({ env: { REUSE_WINDOW: '0s' } });
    ({ api_key: key } = await createAccount(running.stack.db, { login: 'eager', email: 'eager@example.com', balance: 10 }));
    const { config, db, temporalAddress } = running.stack;
    standalone = await startApiServer({ config: { ...config, PORT: 0 }, db, temporalAddress, logger: createLogger('error') });
  });

  afterAll(async () => {
    await standalone?.stop();
    await running?.stop();
  });

  /** Posts one task, returns its id (answer 20100). */
  async function post(api: ApiClient, page: { asin: string; marketplace: string }): Promise<string> {
    const res = await api.post('/v1/retail/product/task_post', [page]);
    expect(res.status).toBe(200);
    expect(res.body.tasks[0]).toMatchObject({ status_code: 20100 });
    return res.body.tasks[0].id as string;
  }

  /** Waits until the task's status code is final, returns it. */
  function finished(id: string): Promise<number> {
    return waitFor(async () => {
      const row = await running.stack.db.prisma.task.findUnique({ where: { id }, select: { completedAt: true, statusCode: true } });
      return row?.completedAt ? row.statusCode : null;
    }, 60_000, 100);
  }

  /** Whether the server handed the workflow's first task back in the start's answer. */
  async function eagerlyStarted(id: string): Promise<boolean> {
    const { events } = await running.client.workflow.getHandle(id).fetchHistory();
    return events?.[0]?.workflowExecutionStartedEventAttributes?.eagerExecutionAccepted === true;
  }

  it('a task posted to the API of `npm start` starts eagerly on the in-process worker and completes', { timeout: 120_000 }, async () => {
    const id = await post(apiClient(running.stack.api.url, { key }), PAGE_A);
    expect(await finished(id)).toBe(20000);
    expect(await eagerlyStarted(id)).toBe(true);
  });

  it('a task posted to a standalone API starts normally and the worker reads it from the queue', { timeout: 120_000 }, async () => {
    const id = await post(apiClient(standalone.url, { key }), PAGE_B);
    expect(await finished(id)).toBe(20000);
    expect(await eagerlyStarted(id)).toBe(false);
  });

  it('with the in-process worker stopped, the API of `npm start` still starts workflows (normally)', { timeout: 120_000 }, async () => {
    await running.stack.worker.stop();
    const id = await post(apiClient(running.stack.api.url, { key }), PAGE_B);
    const { status } = await running.client.workflow.getHandle(id).describe();
    expect(status.name).toBe('RUNNING');
    expect(await eagerlyStarted(id)).toBe(false);
  });
});
