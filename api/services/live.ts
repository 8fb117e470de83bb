/**
 * POST live (api-spec.md "Product endpoints"): one product read within the request.
 * A stored observation at most `max_age_minutes` old is returned at once; otherwise the page is
 * read through a `productTask` workflow within LIVE_BUDGET (60 s); when the budget runs out the
 * task answers 50301 and is refunded. A cache hit is one statement after authentication and rate
 * limiting (core/tasks.ts `createChargedTask`).
 */
import { DomainError } from '../../core/errors.js';
import { newTaskId } from '../../core/ids.js';
import { planOf } from '../../core/pricing.js';
import { collectTaskOutcome, createChargedTask, failTask, type TaskOutcome } from '../../core/tasks.js';
import type { AuthAccount } from '../../core/authentication.js';
import { batchOutcome, taskOutcome, type BatchOutcome } from '../../core/domain/outcomes.js';
import { readTaskFields } from '../../core/validation/read-fields.js';
import { liveTask } from '../../core/validation/requests.js';
import { taskArray } from '../../core/validation/task-body.js';
import { retentionMs, type ProductTaskDeps } from './product-tasks.js';
import { STATUS } from '../../core/domain/status-codes.js';

/**
 * Answers POST live: one task, charged the plan's `live` rate (USD), completed from a stored
 * observation or a page read within LIVE_BUDGET; 40402 / 50301 are refunded.
 * @throws AppError 40600 (plan without live), 40000 / 405xx (HTTP 400, body), 40200 (HTTP 402)
 */
export async function live(deps: ProductTaskDeps, account: AuthAccount, body: unknown): Promise<BatchOutcome> {
  const [element] = taskArray(body, { exactlyOne: true });
  if (!planOf(account.plan).features.live) throw new DomainError('FEATURE_NOT_AVAILABLE');
  const id = newTaskId();
  const path = ['v1', 'retail', 'product', 'live'];
  const data = { ...element!, api: 'retail', function: 'live' };
  let asin: string;
  let marketplace: string;
  let maxAgeMinutes: number;
  try {
    const task = readTaskFields(liveTask, element!);
    asin = task.asin;
    marketplace = task.marketplace.code;
    maxAgeMinutes = task.max_age_minutes;
  } catch (error) {
    // live carries exactly one task: when it is invalid, no task of the request is (HTTP 400).
    if (!(error instanceof DomainError)) throw error;
    throw error;
  }
  const cost = planOf(account.plan).rates.live;
  // Cache hit: one statement charges, stores the task and finishes it from the fresh observation.
  const reuse = maxAgeMinutes > 0 ? { since: new Date(Date.now() - maxAgeMinutes * 60_000), markReused: false, collect: true } : undefined;
  const created = await createChargedTask(deps.db, {
    id, accountId: account.id, endpoint: 'live', asin, marketplace, data, cost, expiresAt: new Date(Date.now() + retentionMs(deps.config)), note: 'live', reuse,
  });
  if (!created) throw new DomainError('PAYMENT_REQUIRED');

  // Finished by the statement: a cache hit (20000), or a fresh not_found observation (40402, refunded).
  let task: TaskOutcome = created;
  if (created.state === 'queued') {
    const budgetMs = deps.config.LIVE_BUDGET;
    try {
      await deps.launcher.start({ taskId: id, asin, marketplace, budgetMs, urgency: 'live', accountId: account.id, login: account.login });
      const finished = await deps.launcher.waitFor(id, budgetMs);
      if (!finished) {
        await failTask(deps.db, id, STATUS.SOURCE_UNAVAILABLE);
        await deps.launcher.cancel(id);
      }
    } catch (error) {
      deps.logger.error({ err: error, taskId: id }, 'live read failed');
      await failTask(deps.db, id, STATUS.SOURCE_UNAVAILABLE);
    }
    task = await collectTaskOutcome(deps.db, id);
    if (task.state !== 'completed' && task.state !== 'failed') {
      // Its workflow ended without finishing it (terminated by an operator): 50301, refunded.
      await failTask(deps.db, id, STATUS.SOURCE_UNAVAILABLE);
      task = await collectTaskOutcome(deps.db, id);
    }
  }
  const result = task.statusCode === STATUS.OK && task.product ? [task.product] : null;
  const code = task.state === 'completed' || task.state === 'failed' ? task.statusCode : STATUS.SOURCE_UNAVAILABLE;
  return batchOutcome([taskOutcome({ id, code, message: task.statusMessage, cost: task.cost, path, data, result })]);
}
