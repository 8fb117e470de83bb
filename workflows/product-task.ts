/**
 * productTask: one workflow per task (workflowId = task id). Reads the product page through the
 * browser grid (retrying blocked/unavailable reads), stores the observation and completes the task;
 * when every attempt fails the task fails with 50301 and is refunded (api-spec.md "Task lifecycle").
 * A finished task_post task then starts its webhook deliveries (workflows/webhook-delivery.ts).
 */
import { ActivityFailure, CancellationScope, isCancellation, patched, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../worker/activities/index.js';
import { pageReadQueue } from '../core/domain/queues.js';
import type { ProductTaskInput, ProductTaskOutcome } from '../core/domain/task-messages.js';
import { startWebhookDeliveries } from './webhook-delivery.js';

const BOOKKEEPING_OPTIONS = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', maximumAttempts: 20 },
} as const;

/**
 * The task's database bookkeeping (mark running, complete, fail) runs as local activities: in the
 * worker that runs the workflow task, without a round trip through a task queue each (≈ 10–20 ms
 * apiece on a fresh read; issue 9's fresh-read overhead). Workflows started before this change
 * replay with the regular activities they recorded (patch `bookkeeping-local-activities`).
 */
const localBookkeeping = proxyLocalActivities<Activities>(BOOKKEEPING_OPTIONS);
const queuedBookkeeping = proxyActivities<Activities>(BOOKKEEPING_OPTIONS);

export async function productTask(input: ProductTaskInput): Promise<ProductTaskOutcome> {
  const { readProductPage } = proxyActivities<Activities>({
    taskQueue: pageReadQueue(workflowInfo().taskQueue),
    startToCloseTimeout: input.budgetMs ?? '90s',
    ...(input.budgetMs ? { scheduleToCloseTimeout: input.budgetMs } : {}),
    heartbeatTimeout: '15s',
    retry: {
      initialInterval: input.retryInitialMs,
      backoffCoefficient: 2,
      maximumAttempts: input.readAttempts,
    },
  });
  // The read marks and completes its task itself: no activity between the workflow's start and
  // the read, none between the read and the workflow's end (issue 9's fresh-read overhead).
  // Workflows started before patch `read-completes-task` replay with their bookkeeping activities.
  const readCompletes = patched('read-completes-task');
  const bookkeeping = readCompletes || patched('bookkeeping-local-activities') ? localBookkeeping : queuedBookkeeping;
  if (!readCompletes) await bookkeeping.markTaskRunning({ taskId: input.taskId });
  try {
    const read = await readProductPage({ asin: input.asin, marketplace: input.marketplace, ...(readCompletes ? { taskId: input.taskId } : {}) });
    const statusCode = read.statusCode ?? (await bookkeeping.completeTask({ taskId: input.taskId, observationId: read.observationId }));
    await startWebhookDeliveries(input.taskId, input.webhooks);
    return { taskId: input.taskId, statusCode, observationId: read.observationId };
  } catch (error) {
    if (!(error instanceof ActivityFailure) && !isCancellation(error)) throw error;
    // Source blocked, unavailable, too slow, or the live budget ran out: 50301, not charged.
    await CancellationScope.nonCancellable(async () => {
      await bookkeeping.failTask({ taskId: input.taskId, code: 50301 });
      await startWebhookDeliveries(input.taskId, input.webhooks);
    });
    if (isCancellation(error)) throw error;
    return { taskId: input.taskId, statusCode: 50301, observationId: null };
  }
}
