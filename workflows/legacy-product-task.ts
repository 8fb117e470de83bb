/**
 * The productTask path of histories recorded before patch `read-completes-task`: the task is
 * marked running and completed by bookkeeping activities around the read (`markTaskRunning`,
 * `completeTask`), as regular activities before patch `bookkeeping-local-activities` and as local
 * activities after it. Today's code never takes this path for a new workflow; it exists so that a
 * productTask started by an older release replays and finishes after a deploy
 * (test/unit/workflow-replay.test.ts replays such histories: test/fixtures/histories/
 * product-task-local-bookkeeping-*.json).
 *
 * Retiring it, in three deploys:
 * 1. Wait until no open productTask predates the release that introduced `read-completes-task`.
 *    Operators check with a visibility query (the start time is that release's first deploy, UTC):
 *      temporal workflow count --query "WorkflowType = 'productTask' AND ExecutionStatus = 'Running'
 *        AND StartTime < '<first deploy of read-completes-task>'"
 *    It must answer 0 (tasks finish within minutes; the task reconciler starts missing workflows
 *    with the current code, so none of them predates the patch).
 * 2. Deploy: in workflows/product-task.ts replace `if (!patched(READ_COMPLETES_TASK)) return
 *    legacyProductTask(input);` with `deprecatePatch(READ_COMPLETES_TASK);`; delete this module's
 *    `legacyProductTask`, the `markTaskRunning`/`completeTask` entries of `LegacyActivityContract`
 *    (workflows/activity-contract.ts), worker/activities/legacy-task-bookkeeping.ts and the
 *    product-task-local-bookkeeping-*.json histories (no open workflow has that shape any more).
 *    Histories recorded with the `patched` marker still replay: `deprecatePatch` accepts them.
 * 3. Once no open productTask was started before deploy 2 (the same query with deploy 2's time),
 *    remove the `deprecatePatch` call and the READ_COMPLETES_TASK constant.
 */
import { ActivityFailure, CancellationScope, isCancellation, patched, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import { pageReadQueue } from '../core/domain/queues.js';
import { STATUS } from '../core/domain/status-codes.js';
import type { ProductTaskInput, ProductTaskOutcome } from '../core/domain/task-messages.js';
import type { WorkerActivities } from './activity-contract.js';
import { startWebhookDeliveries } from './webhook-delivery.js';

/** Patch from which the read activity marks and completes its task itself. */
export const READ_COMPLETES_TASK = 'read-completes-task';
/** Patch from which the bookkeeping activities run as local activities. */
const BOOKKEEPING_LOCAL_ACTIVITIES = 'bookkeeping-local-activities';

/** Timeouts and retries of the task's bookkeeping activities (short database writes). */
export const BOOKKEEPING_OPTIONS = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', maximumAttempts: 20 },
} as const;

const localBookkeeping = proxyLocalActivities<WorkerActivities>(BOOKKEEPING_OPTIONS);
const queuedBookkeeping = proxyActivities<WorkerActivities>(BOOKKEEPING_OPTIONS);

/** productTask as recorded before patch `read-completes-task` (called after that `patched` check). */
export async function legacyProductTask(input: ProductTaskInput): Promise<ProductTaskOutcome> {
  const { readProductPage } = proxyActivities<WorkerActivities>({
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
  const bookkeeping = patched(BOOKKEEPING_LOCAL_ACTIVITIES) ? localBookkeeping : queuedBookkeeping;
  await bookkeeping.markTaskRunning({ taskId: input.taskId });
  try {
    const read = await readProductPage({ asin: input.asin, marketplace: input.marketplace });
    const statusCode = read.statusCode ?? (await bookkeeping.completeTask({ taskId: input.taskId, observationId: read.observationId }));
    await startWebhookDeliveries(input.taskId, input.webhooks, input);
    return { taskId: input.taskId, statusCode, observationId: read.observationId };
  } catch (error) {
    if (!(error instanceof ActivityFailure) && !isCancellation(error)) throw error;
    await CancellationScope.nonCancellable(async () => {
      await bookkeeping.failTask({ taskId: input.taskId, code: STATUS.SOURCE_UNAVAILABLE });
      await startWebhookDeliveries(input.taskId, input.webhooks, input);
    });
    if (isCancellation(error)) throw error;
    return { taskId: input.taskId, statusCode: STATUS.SOURCE_UNAVAILABLE, observationId: null };
  }
}
