/**
 * task_post (api-spec.md "Product endpoints", "Task lifecycle"); task_get and tasks_ready are
 * core/services/task-results.ts.
 */
import { runChargedBody, type ChargedOutcome } from './charged-tasks.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/db.js';
import { DomainError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { planOf, taskPostPrice } from '../../core/pricing.js';
import { createChargedTasks, failTask } from '../../core/tasks.js';
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
 * POST task_post: validates each element, then charges the valid ones in order in one statement
 * (core/tasks.ts `createChargedTasks`: 40200 for those the balance left cannot cover; HTTP 402
 * when none can be paid), each finished at once from an observation younger than REUSE_WINDOW
 * (20000, or 40402 refunded when it says `not_found`) or else queued. The statement is atomic:
 * when it fails, every valid element answers 50000 and nothing is charged. Each queued task's
 * workflow start (all under way at once) either succeeds or the task fails with 50301 and is
 * refunded. The answer waits for the first start to end, and for every start only when that one
 * failed (charged-tasks.ts `ChargedOutcome.settle`): a start Temporal refuses is then answered
 * 50301 at cost 0 in the request, while a start that fails after the answer fails its task the
 * same way, seen in task_get, tasks_ready and the task's webhooks. A task left charged without a
 * workflow by an error after the statement, or by the process dying, is started or refunded by the
 * worker's task reconciler.
 */
export async function taskPost(deps: ProductTaskDeps, account: AuthAccount, body: unknown): Promise<BatchOutcome> {
  const elements = taskArray(body);
  const plan = planOf(account.plan);
  if (!plan.features.highPriority && elements.some((e) => e.priority === 2)) throw new DomainError('FEATURE_NOT_AVAILABLE');
  const path = [...API_PREFIX, 'task_post'];
  const checks = webhookUrlChecks({ allowlist: deps.config.WEBHOOK_ALLOWLIST, ports: deps.config.WEBHOOK_PORTS });
  const finishedWithWebhooks: WebhookStart[] = [];
  const tasks = await runChargedBody(elements, { fn: 'task_post', path, logger: deps.logger }, {
    validate: (element) => readTaskFields(taskPostTask, element, checks),
    charge: async (valid) => {
      const reuseWindow = deps.config.REUSE_WINDOW;
      const created = await createChargedTasks(deps.db.sql, {
        accountId: account.id, endpoint: 'task_post', note: 'task_post', expiresAt: new Date(Date.now() + retentionMs(deps.config)),
        reuse: reuseWindow > 0 ? { since: new Date(Date.now() - reuseWindow), markReused: true, collect: false } : undefined,
        tasks: valid.map(({ id, data, fields: f }) => ({
          id, data, asin: f.asin, marketplace: f.marketplace.code, cost: taskPostPrice(plan.rates, f.priority), priority: f.priority,
          tag: f.tag, postbackUrl: f.postback_url, pingbackUrl: f.pingback_url,
        })),
      });
      return valid.map(({ id, fields: f }, i): ChargedOutcome | DomainError => {
        const task = created[i];
        if (!task) return new DomainError('PAYMENT_REQUIRED');
        const webhookKinds = webhookKindsOf(f.postback_url, f.pingback_url);
        const labels = { accountId: account.id, asin: f.asin, marketplace: f.marketplace.code, tag: f.tag };
        const urls = { postback: f.postback_url, pingback: f.pingback_url };
        if (task.state === 'queued') {
          const settle = startOrFail(deps, {
            ...labels, taskId: id, webhookKinds, urgency: urgencyOfPriority(f.priority), login: account.login, priority: f.priority, webhookUrls: urls,
          });
          return { code: STATUS.TASK_CREATED, cost: task.cost, settle };
        }
        // Finished by the statement from the reuse window: completed, or 40402 refunded (cost 0).
        if (webhookKinds.length) finishedWithWebhooks.push({ ...labels, taskId: id, kinds: webhookKinds, urls });
        return { code: STATUS.TASK_CREATED, cost: task.cost };
      });
    },
  });
  await Promise.all(finishedWithWebhooks.map((t) => startWebhooks(deps, t)));
  return batchOutcome(tasks);
}

/**
 * A task_post task whose workflow is to be started (a product task, or with `kind: 'search'` a
 * search task); `urgency` from its priority (1 or 2); labels for the operators' view.
 */
export type StartRequest = TaskLabels & { taskId: string; marketplace: string; webhookKinds: WebhookKind[]; urgency: ReadUrgency; accountId: number }
  & ({ kind?: 'product'; asin: string } | { kind: 'search'; keyword: string; pages: number });

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
    await startWebhooks(deps, {
      taskId: task.taskId, kinds: task.webhookKinds, accountId: task.accountId, ...(task.kind === 'search' ? {} : { asin: task.asin }),
      marketplace: task.marketplace, tag: task.tag, urls: task.webhookUrls,
    });
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
