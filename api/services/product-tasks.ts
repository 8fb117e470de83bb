/**
 * task_post (api-spec.md "Product endpoints", "Task lifecycle"); task_get and tasks_ready are
 * core/services/task-results.ts.
 */
import { runChargedTasks } from './charged-tasks.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/db.js';
import { DomainError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { planOf } from '../../core/pricing.js';
import { createChargedTask, failTask } from '../../core/tasks.js';
import type { AuthAccount } from '../../core/authentication.js';
import { batchOutcome, PRODUCT_API_PREFIX, type BatchOutcome } from '../../core/domain/outcomes.js';
import { readTaskFields } from '../../core/validation/read-fields.js';
import { taskPostTask, webhookUrlChecks } from '../../core/validation/requests.js';
import { taskArray } from '../../core/validation/task-body.js';
import { urgencyOfPriority, type ReadUrgency } from '../../core/domain/task-messages.js';
import { webhookKindsOf, type WebhookKind } from '../../core/domain/webhook-messages.js';
import type { TaskLabels, TaskLauncher } from './task-launcher.js';
import { STATUS } from '../../core/domain/status-codes.js';

/** Result retention (api-spec.md "Limits": 30 days by default): the task's `expires_at`, ms from now. */
export function retentionMs(config: Config): number {
  return config.RETENTION_DAYS * 86_400_000;
}

export interface ProductTaskDeps {
  config: Config;
  db: Db;
  launcher: TaskLauncher;
  logger: Logger;
}

const API_PREFIX = PRODUCT_API_PREFIX;

/**
 * POST task_post: validates each element, charges each valid one in order (40200 for those the
 * balance cannot cover; HTTP 402 when none can be paid), completes at once from an observation
 * younger than REUSE_WINDOW, otherwise starts its workflow. Acceptance is atomic per element: its
 * charge and task row are one statement, and its workflow start (under way while later elements
 * are handled; the answer waits for every start) either succeeds or the task fails with 50301 and
 * is refunded (cost 0 in the answer). A task left charged without a workflow by an error after its
 * charge, or by the process dying, is started or refunded by the worker's task reconciler.
 */
export async function taskPost(deps: ProductTaskDeps, account: AuthAccount, body: unknown): Promise<BatchOutcome> {
  const elements = taskArray(body);
  const plan = planOf(account.plan);
  const rates = plan.rates;
  if (!plan.features.highPriority && elements.some((e) => e.priority === 2)) throw new DomainError('FEATURE_NOT_AVAILABLE');
  const path = [...API_PREFIX, 'task_post'];
  const finishedWithWebhooks: WebhookStart[] = [];
  const tasks = await runChargedTasks(elements, { fn: 'task_post', path, logger: deps.logger }, async (element, { id, data, payable, paid }) => {
    const { asin, marketplace, priority, tag, postback_url: postbackUrl, pingback_url: pingbackUrl } = readTaskFields(taskPostTask, element, webhookUrlChecks({ allowlist: deps.config.WEBHOOK_ALLOWLIST, ports: deps.config.WEBHOOK_PORTS }));
    const webhookKinds = webhookKindsOf(postbackUrl, pingbackUrl);
    payable();
    const cost = priority === 2 ? rates.task_post_high : rates.task_post;
    // One statement charges, stores the task and, within the reuse window, completes it
    // (core/tasks.ts `createChargedTask`): no transaction held open across round trips. When it
    // throws, nothing was charged.
    const reuseWindow = deps.config.REUSE_WINDOW;
    const created = await createChargedTask(deps.db, {
      id, accountId: account.id, endpoint: 'task_post', asin, marketplace: marketplace.code, data, cost,
      expiresAt: new Date(Date.now() + retentionMs(deps.config)), priority, tag, postbackUrl, pingbackUrl, note: 'task_post',
      reuse: reuseWindow > 0 ? { since: new Date(Date.now() - reuseWindow), markReused: true, collect: false } : undefined,
    });
    if (!created) throw new DomainError('PAYMENT_REQUIRED');
    paid();
    if (!created.fresh) {
      const settle = startOrFail(deps, {
        taskId: id, asin, marketplace: marketplace.code, webhookKinds, urgency: urgencyOfPriority(priority), accountId: account.id,
        login: account.login, tag, priority, webhookUrls: { postback: postbackUrl, pingback: pingbackUrl },
      });
      return { code: STATUS.TASK_CREATED, cost: created.cost, settle };
    }
    // Completed at once from the reuse window; a not_found observation is refunded at once (40402).
    let charged = created.cost;
    if (created.state !== 'completed') {
      try {
        if (await failTask(deps.db, id, STATUS.PRODUCT_NOT_FOUND, created.fresh.id)) charged = 0;
      } catch (error) {
        // Charged and still queued: the reconciler starts its workflow, whose read refunds it.
        deps.logger.error({ err: error, taskId: id }, 'could not fail the task from a not_found observation');
        return { code: STATUS.TASK_CREATED, cost: charged };
      }
    }
    if (webhookKinds.length) {
      finishedWithWebhooks.push({ taskId: id, kinds: webhookKinds, accountId: account.id, asin, marketplace: marketplace.code, tag, urls: { postback: postbackUrl, pingback: pingbackUrl } });
    }
    return { code: STATUS.TASK_CREATED, cost: charged };
  });
  await Promise.all(finishedWithWebhooks.map((t) => startWebhooks(deps, t)));
  return batchOutcome(tasks);
}

/** A task_post task whose workflow is to be started; `urgency` from its priority (1 or 2); labels for the operators' view. */
export interface StartRequest extends TaskLabels { taskId: string; asin: string; marketplace: string; webhookKinds: WebhookKind[]; urgency: ReadUrgency; accountId: number }

/** The deliveries of a task finished in the API, with what labels them for operators. */
export type WebhookStart = Parameters<TaskLauncher['startWebhooks']>[0] & { accountId: number };

/**
 * Starts a task's workflow; if Temporal refuses, the task fails with 50301 and is refunded (its
 * webhooks are then started from here, as for any finished task).
 * @returns the element's task-level error when the task was refunded (50301), else undefined:
 *   started, or left charged without a workflow because the refund itself failed (the reconciler
 *   then starts or refunds it). Never rejects.
 */
export async function startOrFail(deps: ProductTaskDeps, task: StartRequest): Promise<DomainError | undefined> {
  try {
    await deps.launcher.start(task);
    return undefined;
  } catch (error) {
    deps.logger.error({ err: error, taskId: task.taskId }, 'could not start workflow');
  }
  try {
    if (!(await failTask(deps.db, task.taskId, STATUS.SOURCE_UNAVAILABLE))) return undefined;
  } catch (error) {
    deps.logger.error({ err: error, taskId: task.taskId }, 'could not refund the task whose workflow did not start');
    return undefined;
  }
  if (task.webhookKinds.length) {
    await startWebhooks(deps, { taskId: task.taskId, kinds: task.webhookKinds, accountId: task.accountId, asin: task.asin, marketplace: task.marketplace, tag: task.tag, urls: task.webhookUrls });
  }
  return new DomainError('SOURCE_UNAVAILABLE');
}

/**
 * Starts the webhook deliveries of a task finished in the API. The task is finished and stays in
 * tasks_ready whatever happens here, so a failure is logged, not answered.
 */
export async function startWebhooks(deps: ProductTaskDeps, task: WebhookStart): Promise<void> {
  try {
    await deps.launcher.startWebhooks(task);
  } catch (error) {
    deps.logger.error({ err: error, taskId: task.taskId }, 'could not start webhook deliveries');
  }
}
