/**
 * productTask: one workflow per task (workflowId = task id). Reads the product page through the
 * browser grid (retrying blocked/unavailable reads); the read stores the observation and completes
 * the task itself, so no activity runs between the workflow's start and the read, nor between the
 * read and the workflow's end. When every attempt fails the task fails with 50301 and is refunded
 * (api-spec.md "Task lifecycle"). A finished task_post task then starts its webhook deliveries
 * (workflows/webhook-delivery.ts).
 *
 * The task's final status code is upserted as its `ResultCode` search attribute (patch
 * `operator-view`, workflows/operator-view.ts), so operators find failed tasks in the Temporal UI.
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
import { showDetails, upsertResultCode } from './operator-view.js';
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
    finished(statusCode);
    await startWebhookDeliveries(input.taskId, input.webhooks, input);
    return { taskId: input.taskId, statusCode, observationId: read.observationId };
  } catch (error) {
    if (!(error instanceof ActivityFailure) && !isCancellation(error)) throw error;
    // Source blocked, unavailable, too slow, or the live budget ran out: 50301, not charged.
    await CancellationScope.nonCancellable(async () => {
      await bookkeeping.failTask({ taskId: input.taskId, code: STATUS.SOURCE_UNAVAILABLE });
      finished(STATUS.SOURCE_UNAVAILABLE, isCancellation(error) ? 'cancelled' : undefined);
      await startWebhookDeliveries(input.taskId, input.webhooks, input);
    });
    if (isCancellation(error)) throw error;
    return { taskId: input.taskId, statusCode: STATUS.SOURCE_UNAVAILABLE, observationId: null };
  }
}

/** What a final status code means for the customer, in the task's details. */
const OUTCOME_NOTES: Record<number, string> = {
  [STATUS.OK]: 'product read; charged',
  [STATUS.PRODUCT_NOT_FOUND]: 'product not found; not charged',
  [STATUS.SOURCE_UNAVAILABLE]: 'source not read; refunded',
};

/** Records the task's final status code for operators (search attribute and details). */
function finished(statusCode: number, how?: 'cancelled'): void {
  upsertResultCode(statusCode);
  showDetails([`finished: ${statusCode} (${OUTCOME_NOTES[statusCode] ?? 'finished'}${how ? `, ${how}` : ''})`]);
}
