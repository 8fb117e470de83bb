/**
 * Signals and the in-process worker: a SIGUSR2 that the process handles (a heap snapshot asked
 * with `node --heapsnapshot-signal=SIGUSR2`, nodemon's restart) leaves the Temporal workers running,
 * so tasks keep being read; the SDK's runtime would otherwise shut them down and leave the API
 * accepting tasks nobody reads (worker/worker.ts `installTemporalLogging`). Whole stack: real
 * Temporal dev server, real Chromium, PGlite, the synthetic replay pages as the marketplace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { apiClient, waitFor } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

/** A product page of the synthetic replay folder (completes with 20000). */
const PAGE = { asin: 'B0000000P1', marketplace: 'de' };

describe('worker and process signals', () => {
  let running: TestStack;
  let key: string;
  const snapshotRequests: string[] = [];
  const onSignal = (signal: string) => snapshotRequests.push(signal);

  beforeAll(async () => {
    running = await startTestStack({ env: { REUSE_WINDOW: '0s' } });
    ({ api_key: key } = await createAccount(running.stack.db, { login: 'signals', email: 'signals@example.com', balance: 10 }));
  });

  afterAll(async () => {
    process.off('SIGUSR2', onSignal);
    await running?.stop();
  });

  it('a SIGUSR2 the process handles leaves the workers running: a task posted afterwards is read and completed', async () => {
    const api = apiClient(running.stack.api.url, { key });
    process.on('SIGUSR2', onSignal);
    process.kill(process.pid, 'SIGUSR2');
    await waitFor(async () => snapshotRequests.length > 0, 5_000, 20);
    // Give a shutdown, if one were started, time to take the workers down.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(running.stack.worker.worker.getState()).toBe('RUNNING');
    const res = await api.post('/v1/retail/product/task_post', [PAGE]);
    expect(res.body.tasks[0]).toMatchObject({ status_code: 20100 });
    const id = res.body.tasks[0].id as string;
    const code = await waitFor(async () => {
      const row = await running.stack.db.prisma.task.findUnique({ where: { id }, select: { completedAt: true, statusCode: true } });
      return row?.completedAt ? row.statusCode : null;
    }, 60_000, 100);
    expect(code).toBe(20000);
  }, 120_000);
});
