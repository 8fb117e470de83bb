/**
 * productTask: one workflow per task (workflowId = task id). Reads the product page through the
 * browser grid (retrying blocked/unavailable reads); the read stores the observation and completes
 * the task itself, so no activity runs between the workflow's start and the read, nor between the
 * read and the workflow's end. When every attempt fails the task fails with 50301 and is refunded
 * (api-spec.md "Task lifecycle"). A finished task_post task then starts its webhook deliveries
 * (workflows/webhook-delivery.ts).
 *
 * Histories recorded before patch `read-completes-task` replay with their bookkeeping activities
 * (workflows/legacy-product-task.ts, which says how that path is retired).
 */
import { ActivityFailure, CancellationScope, isCancellation, patched, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import { pageReadQueue } from '../core/domain/queues.js';
import { STATUS } from '../core/domain/status-codes.js';
import type { ProductTaskInput, ProductTaskOutcome } from '../core/domain/task-messages.js';
import type { ActivityContract } from './activity-contract.js';
import { BOOKKEEPING_OPTIONS, READ_COMPLETES_TASK, legacyProductTask } from './legacy-product-task.js';
import { startWebhookDeliveries } from './webhook-delivery.js';

/**
 * Failing a task is a short database write: it runs as a local activity, in the worker that runs
 * the workflow task, without a round trip through a task queue.
 */
const bookkeeping = proxyLocalActivities<ActivityContract>(BOOKKEEPING_OPTIONS);

export async function productTask(input: ProductTaskInput): Promise<ProductTaskOutcome> {
  if (!patched(READ_COMPLETES_TASK)) return legacyProductTask(input);
  const { readProductPage } = proxyActivities<ActivityContract>({
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
  try {
    const read = await readProductPage({ asin: input.asin, marketplace: input.marketplace, taskId: input.taskId });
    // The read completed the task: its result carries the status code (20000, or 40402 refunded).
    const statusCode = read.statusCode!;
    await startWebhookDeliveries(input.taskId, input.webhooks);
    return { taskId: input.taskId, statusCode, observationId: read.observationId };
  } catch (error) {
    if (!(error instanceof ActivityFailure) && !isCancellation(error)) throw error;
    // Source blocked, unavailable, too slow, or the live budget ran out: 50301, not charged.
    await CancellationScope.nonCancellable(async () => {
      await bookkeeping.failTask({ taskId: input.taskId, code: STATUS.SOURCE_UNAVAILABLE });
      await startWebhookDeliveries(input.taskId, input.webhooks);
    });
    if (isCancellation(error)) throw error;
    return { taskId: input.taskId, statusCode: STATUS.SOURCE_UNAVAILABLE, observationId: null };
  }
}
