/**
 * Scheduled maintenance over the whole stack (real Temporal dev server, the worker with real
 * Chromium reading the synthetic replay pages, PGlite): the worker registers the Temporal Schedules
 * `retention-purge` and `task-reconciler`; a run of `retention-purge` deletes tasks (with their
 * webhook deliveries), webhook deliveries, bulk batches with their rows and rate-limit windows
 * older than RETENTION_DAYS and
 * Idempotency-Key rows older than 24 hours, and keeps observations, ledger entries and whatever is
 * younger (operations-contract.md `RETENTION_DAYS`); a run of `task-reconciler` starts the workflow
 * of a charged task left without one, whose read then completes it.
 */
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { newTaskId } from '../../core/ids.js';
import { storeObservation } from '../../core/observations.js';
import { PLANS } from '../../core/pricing.js';
import { RECONCILE_GRACE_MS } from '../../core/task-reconciler.js';
import { createChargedTask } from '../../core/tasks.js';
import type { Stack } from '../../scripts/stack.js';
import type { DelayedReplay } from '../support/delayed-replay.js';
import { waitFor } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';
import { version1Fields } from '../../core/product.js';

const RETENTION_DAYS = 7;
const DAY_MS = 86_400_000;

describe('scheduled maintenance: retention purge and task reconciler', () => {
  let running: TestStack;
  let stack: Stack;
  let replay: DelayedReplay;
  let client: Client;
  let accountId: number;

  beforeAll(async () => {
    running = await startTestStack({ env: { REUSE_WINDOW: '0s', RETENTION_DAYS: String(RETENTION_DAYS) } });
    ({ stack, replay, client } = running);
    accountId = (await createAccount(stack.db, { login: 'keeper', email: 'keeper@example.com', balance: 1 })).id;
  });

  afterAll(async () => {
    await running?.stop();
  });

  it('the worker registers the maintenance schedules on its task queue', async () => {
    const reconciler = await client.schedule.getHandle('task-reconciler').describe();
    expect(reconciler.action).toMatchObject({ type: 'startWorkflow', workflowType: 'taskReconciler', taskQueue: stack.config.TEMPORAL_TASK_QUEUE });
    expect(reconciler.spec.intervals).toMatchObject([{ every: 60_000 }]);
    const purge = await client.schedule.getHandle('retention-purge').describe();
    expect(purge.action).toMatchObject({ type: 'startWorkflow', workflowType: 'retentionPurge', taskQueue: stack.config.TEMPORAL_TASK_QUEUE });
    expect(purge.spec.intervals).toMatchObject([{ every: 3_600_000 }]);
  });

  it('a retention-purge run deletes what is older than RETENTION_DAYS and keeps observations, the ledger and younger rows', async () => {
    const db = stack.db;
    const prisma = db.prisma;
    const ago = (days: number) => new Date(Date.now() - days * DAY_MS);
    const observationId = await storeObservation(db, {
      asin: 'B0OLD00001', marketplace: 'com', url: 'https://www.amazon.com/dp/B0OLD00001', observed_at: ago(RETENTION_DAYS + 3).toISOString(), status: 'ok',
      title: 'Old', byline: [], variant: null, variants: [], price: null, bsr: null, rating: null, ratings_count: null, image_url: null, details: {}, parser_version: 'test', ...version1Fields(),
    });
    const task = async (createdDaysAgo: number, state: 'completed' | 'queued') => {
      const id = newTaskId();
      await createChargedTask(db, {
        id, accountId, endpoint: 'task_post', asin: 'B0OLD00001', marketplace: 'com', data: {}, cost: 0.0015,
        expiresAt: new Date(ago(createdDaysAgo).getTime() + 30 * DAY_MS), note: 'task_post',
      });
      await prisma.task.update({
        where: { id },
        data: { createdAt: ago(createdDaysAgo), ...(state === 'completed' ? { state, statusCode: 20000, observationId, completedAt: ago(createdDaysAgo) } : { reconciledAt: new Date() }) },
      });
      return id;
    };
    const oldTask = await task(RETENTION_DAYS + 1, 'completed');
    const youngTask = await task(RETENTION_DAYS - 1, 'completed');
    const oldUnfinished = await task(RETENTION_DAYS + 1, 'queued');
    const delivery = (taskId: string, createdAt: Date) => ({ taskId, kind: 'postback', url: 'https://hooks.example.com/x', attempt: 1, outcome: 'delivered', httpStatus: 200, durationMs: 5, createdAt });
    await prisma.webhookDelivery.createMany({
      data: [delivery(oldTask, ago(RETENTION_DAYS + 1)), delivery(youngTask, ago(RETENTION_DAYS + 0.5)), delivery(youngTask, ago(1))],
    });
    const changeEvent = (id: string, createdAt: Date) => ({ id, accountId, kind: 'change', subscriptionId: 1, url: 'https://hooks.example.com/a', body: '{}', createdAt });
    await prisma.webhookEvent.createMany({
      data: [changeEvent('00000000-0000-4000-8000-0000000000c1', ago(RETENTION_DAYS + 1)), changeEvent('00000000-0000-4000-8000-0000000000c2', ago(RETENTION_DAYS - 1))],
    });
    await prisma.rateLimit.createMany({
      data: [
        { key: 'req:old', points: 1, expire: BigInt(ago(RETENTION_DAYS + 1).getTime()) },
        { key: 'req:recent', points: 1, expire: BigInt(ago(RETENTION_DAYS - 1).getTime()) },
      ],
    });
    await prisma.idempotencyKey.createMany({
      data: [
        { accountId, key: 'yesterday', requestHash: 'a'.repeat(64), httpStatus: 200, response: '{}', createdAt: new Date(Date.now() - 25 * 3_600_000) },
        { accountId, key: 'today', requestHash: 'b'.repeat(64), httpStatus: 200, response: '{}', createdAt: new Date(Date.now() - 3_600_000) },
      ],
    });
    const batch = async (createdDaysAgo: number, taskId: string) => {
      const id = newTaskId();
      await prisma.batch.create({ data: { id, accountId, format: 'csv', state: 'done', rows: 2, createdAt: ago(createdDaysAgo) } });
      await prisma.batchRow.createMany({
        data: [
          { batchId: id, row: 1, taskId, asin: 'B0OLD00001', marketplace: 'com', statusCode: 20100, statusMessage: 'Task Created.' },
          { batchId: id, row: 2, statusCode: 40503, statusMessage: 'Invalid ASIN.' },
        ],
      });
      return id;
    };
    const oldBatch = await batch(RETENTION_DAYS + 1, oldTask);
    const youngBatch = await batch(RETENTION_DAYS - 1, youngTask);
    const ledgerBefore = await prisma.ledgerEntry.count({ where: { accountId } });

    await client.schedule.getHandle('retention-purge').trigger();
    await waitFor(async () => (await prisma.task.count({ where: { id: oldTask } })) === 0, 60_000, 200);
    await waitFor(async () => (await prisma.idempotencyKey.count()) === 1, 30_000, 200);

    expect((await prisma.task.findMany({ where: { accountId }, select: { id: true } })).map((t) => t.id).sort()).toEqual([youngTask, oldUnfinished].sort());
    expect((await prisma.webhookDelivery.findMany({ select: { taskId: true, createdAt: true } })).map((d) => d.taskId)).toEqual([youngTask]);
    expect((await prisma.webhookEvent.findMany({ where: { kind: 'change' }, select: { id: true } })).map((e) => e.id)).toEqual(['00000000-0000-4000-8000-0000000000c2']);
    expect((await prisma.rateLimit.findMany({ where: { key: { in: ['req:old', 'req:recent'] } } })).map((r) => r.key)).toEqual(['req:recent']);
    expect((await prisma.idempotencyKey.findMany()).map((k) => k.key)).toEqual(['today']);
    expect((await prisma.batch.findMany({ where: { id: { in: [oldBatch, youngBatch] } } })).map((b) => b.id)).toEqual([youngBatch]);
    expect(await prisma.batchRow.count({ where: { batchId: { in: [oldBatch, youngBatch] } } })).toBe(2);
    expect(await prisma.observation.count({ where: { id: observationId } })).toBe(1);
    expect(await prisma.ledgerEntry.count({ where: { accountId } })).toBe(ledgerBefore);
    const money = await accountMoney(prisma, { id: accountId });
    expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
  });

  it('a task-reconciler run starts the workflow of a charged task left without one; its read completes it', async () => {
    const db = stack.db;
    const prisma = db.prisma;
    const id = newTaskId();
    const cost = PLANS.standard!.rates.task_post;
    // The API's charge statement without the start that should follow it (a process dying in between).
    await createChargedTask(db, {
      id, accountId, endpoint: 'task_post', asin: 'B0000000P1', marketplace: 'de', data: { asin: 'B0000000P1', marketplace: 'de' }, cost,
      expiresAt: new Date(Date.now() + 30 * DAY_MS), note: 'task_post',
    });
    await prisma.task.update({ where: { id }, data: { createdAt: new Date(Date.now() - RECONCILE_GRACE_MS - 60_000) } });

    await client.schedule.getHandle('task-reconciler').trigger();
    const done = await waitFor(async () => {
      const row = await prisma.task.findUniqueOrThrow({ where: { id } });
      return row.completedAt ? row : null;
    }, 90_000, 250);
    expect(done).toMatchObject({ state: 'completed', statusCode: 20000 });
    expect(Number(done.cost)).toBeCloseTo(cost, 9);
    expect(replay.hits('/www.amazon.de/dp/B0000000P1')).toBe(1);
    const money = await accountMoney(prisma, { id: accountId });
    expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
  });
});
