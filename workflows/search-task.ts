/**
 * searchTask: one workflow per search task (workflowId = task id; search-page-contract.md "API").
 * Reads the results pages 1..pages of the task's keyword one after another through the
 * `readSearchPage` activity (the browser grid, retried on other identities and by Temporal's
 * retries as a product read is); each page read stores its SearchResults observation. Then the
 * task completes with the observations (20000); when page 1 says `no_results` no further page is
 * read (the unread pages are refunded, core/search-tasks.ts). When a page cannot be read (robot
 * check, error page, degraded page, the source unavailable, the live budget spent) the task fails
 * with 50301 and is refunded whole. A finished task_post task then starts its webhook deliveries.
 *
 * The pages of one task share the `observed_at` of the first page read, so that rank history sees
 * them as one read. The task's final status code is upserted as its `ResultCode` search attribute.
 */
import { ActivityFailure, CancellationScope, isCancellation, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import { pageReadQueue } from '../core/domain/queues.js';
import { STATUS } from '../core/domain/status-codes.js';
import { SEARCH_REUSE_WINDOW_MS, type SearchTaskInput, type SearchTaskOutcome } from '../core/domain/task-messages.js';
import type { ActivityContract } from './activity-contract.js';
import { BOOKKEEPING_OPTIONS } from './legacy-product-task.js';
import { showDetails, upsertResultCode } from './operator-view.js';
import { startWebhookDeliveries } from './webhook-delivery.js';

/** Failing or completing the task is a short database write: a local activity. */
const bookkeeping = proxyLocalActivities<ActivityContract>(BOOKKEEPING_OPTIONS);


export async function searchTask(input: SearchTaskInput): Promise<SearchTaskOutcome> {
  const { readSearchPage } = proxyActivities<ActivityContract>({
    taskQueue: pageReadQueue(workflowInfo().taskQueue),
    startToCloseTimeout: input.budgetMs ?? '90s',
    ...(input.budgetMs ? { scheduleToCloseTimeout: input.budgetMs } : {}),
    heartbeatTimeout: '15s',
    retry: { initialInterval: input.retryInitialMs, backoffCoefficient: 2, maximumAttempts: input.readAttempts },
  });
  const ids: string[] = [];
  try {
    // Workflow time is deterministic: the reuse window is measured from the workflow's start.
    const reuseSince = new Date(workflowInfo().startTime.getTime() - SEARCH_REUSE_WINDOW_MS).toISOString();
    let observedAt: string | undefined;
    for (let page = 1; page <= input.pages; page++) {
      const read = await readSearchPage({
        keyword: input.keyword, marketplace: input.marketplace, page, taskId: input.taskId, reuseSince,
        ...(observedAt === undefined ? {} : { observedAt }),
      });
      ids.push(read.observationId);
      observedAt ??= read.observedAt;
      if (page === 1 && read.status === 'no_results') break;
    }
    await bookkeeping.completeSearchTask({ taskId: input.taskId, observationIds: ids });
    finished(STATUS.OK, ids.length, input.pages);
    await startWebhookDeliveries(input.taskId, input.webhooks, input);
    return { taskId: input.taskId, statusCode: STATUS.OK, observationIds: ids };
  } catch (error) {
    if (!(error instanceof ActivityFailure) && !isCancellation(error)) throw error;
    // A page blocked, unavailable, too slow, or the live budget ran out: 50301, refunded whole.
    await CancellationScope.nonCancellable(async () => {
      await bookkeeping.failTask({ taskId: input.taskId, code: STATUS.SOURCE_UNAVAILABLE });
      finished(STATUS.SOURCE_UNAVAILABLE, ids.length, input.pages, isCancellation(error) ? 'cancelled' : undefined);
      await startWebhookDeliveries(input.taskId, input.webhooks, input);
    });
    if (isCancellation(error)) throw error;
    return { taskId: input.taskId, statusCode: STATUS.SOURCE_UNAVAILABLE, observationIds: [] };
  }
}

/** Records the task's final status code for operators (search attribute and details). */
function finished(statusCode: number, read: number, pages: number, how?: 'cancelled'): void {
  upsertResultCode(statusCode);
  const note = statusCode === STATUS.OK ? `${read} of ${pages} page(s) read; charged${read < pages ? ' for those' : ''}` : `page ${read + 1} not read; refunded`;
  showDetails([`finished: ${statusCode} (${note}${how ? `, ${how}` : ''})`]);
}
