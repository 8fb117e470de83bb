/**
 * task_post, tasks_ready, task_get (api-spec.md "Product endpoints", "Task lifecycle").
 */
import { runChargedTasks } from './charged-tasks.js';
import type { Config } from '../../core/config.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { sqlOf } from '../../core/db/sql.js';
import { AppError, TaskError } from '../../core/errors.js';
import { isUuid, newTaskId } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import { planOf } from '../../core/pricing.js';
import { taskGetEnvelope, PRODUCT_API_PREFIX } from '../../core/task-envelope.js';
import { collectTask, readyTasks } from '../../core/task-reads.js';
import { createChargedTask, failTask } from '../../core/tasks.js';
import type { AuthAccount } from '../context.js';
import { envelope, taskObject, type Envelope } from '../envelope.js';
import { readTaskFields } from '../validation/read-fields.js';
import { taskPostTask, webhookUrlChecks } from '../validation/requests.js';
import { taskArray } from '../validation/task-body.js';
import { urgencyOfPriority, type ReadUrgency } from '../../core/domain/task-messages.js';
import { webhookKindsOf, type WebhookKind } from '../../core/domain/webhook-messages.js';
import type { TaskLauncher } from './task-launcher.js';

/** Result retention (api-spec.md "Limits": 30 days by default): the task's `expires_at`, ms from now. */
export function retentionMs(config: Config): number {
  return config.RETENTION_DAYS * 86_400_000;
}

export interface ProductTaskDeps {
  config: Config;
  prisma: PrismaClient;
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
export async function taskPost(deps: ProductTaskDeps, account: AuthAccount, body: unknown, startedAt: number): Promise<{ status: number; body: Envelope }> {
  const elements = taskArray(body);
  const plan = planOf(account.plan);
  const rates = plan.rates;
  if (!plan.features.highPriority && elements.some((e) => e.priority === 2)) throw new AppError('FEATURE_NOT_AVAILABLE');
  const path = [...API_PREFIX, 'task_post'];
  const finishedWithWebhooks: { taskId: string; kinds: WebhookKind[]; accountId: number }[] = [];
  const tasks = await runChargedTasks(elements, { fn: 'task_post', path, startedAt, logger: deps.logger }, async (element, { id, data, payable, paid }) => {
    const { asin, marketplace, priority, tag, postback_url: postbackUrl, pingback_url: pingbackUrl } = readTaskFields(taskPostTask, element, webhookUrlChecks({ allowlist: deps.config.WEBHOOK_ALLOWLIST, ports: deps.config.WEBHOOK_PORTS }));
    const webhookKinds = webhookKindsOf(postbackUrl, pingbackUrl);
    payable();
    const cost = priority === 2 ? rates.task_post_high : rates.task_post;
    // One statement charges, stores the task and, within the reuse window, completes it
    // (core/tasks.ts `createChargedTask`): no transaction held open across round trips. When it
    // throws, nothing was charged.
    const reuseWindow = deps.config.REUSE_WINDOW;
    const created = await createChargedTask(deps.prisma, {
      id, accountId: account.id, endpoint: 'task_post', asin, marketplace: marketplace.code, data, cost,
      expiresAt: new Date(Date.now() + retentionMs(deps.config)), priority, tag, postbackUrl, pingbackUrl, note: 'task_post',
      reuse: reuseWindow > 0 ? { since: new Date(Date.now() - reuseWindow), markReused: true, collect: false } : undefined,
    });
    if (!created) throw new TaskError(40200);
    paid();
    if (!created.fresh) {
      const settle = startOrFail(deps, { taskId: id, asin, marketplace: marketplace.code, webhookKinds, urgency: urgencyOfPriority(priority), accountId: account.id });
      return { code: 20100, cost: created.cost, settle };
    }
    // Completed at once from the reuse window; a not_found observation is refunded at once (40402).
    let charged = created.cost;
    if (created.state !== 'completed') {
      try {
        if (await failTask(deps.prisma, id, 40402, created.fresh.id)) charged = 0;
      } catch (error) {
        // Charged and still queued: the reconciler starts its workflow, whose read refunds it.
        deps.logger.error({ err: error, taskId: id }, 'could not fail the task from a not_found observation');
        return { code: 20100, cost: charged };
      }
    }
    if (webhookKinds.length) finishedWithWebhooks.push({ taskId: id, kinds: webhookKinds, accountId: account.id });
    return { code: 20100, cost: charged };
  });
  await Promise.all(finishedWithWebhooks.map((t) => startWebhooks(deps, t)));
  return { status: 200, body: envelope(startedAt, tasks) };
}

/** A task_post task whose workflow is to be started; `urgency` from its priority (1 or 2). */
interface StartRequest { taskId: string; asin: string; marketplace: string; webhookKinds: WebhookKind[]; urgency: ReadUrgency; accountId: number }

/**
 * Starts a task's workflow; if Temporal refuses, the task fails with 50301 and is refunded (its
 * webhooks are then started from here, as for any finished task).
 * @returns the element's task-level error when the task was refunded (50301), else undefined:
 *   started, or left charged without a workflow because the refund itself failed (the reconciler
 *   then starts or refunds it). Never rejects.
 */
async function startOrFail(deps: ProductTaskDeps, task: StartRequest): Promise<TaskError | undefined> {
  try {
    await deps.launcher.start(task);
    return undefined;
  } catch (error) {
    deps.logger.error({ err: error, taskId: task.taskId }, 'could not start workflow');
  }
  try {
    if (!(await failTask(deps.prisma, task.taskId, 50301))) return undefined;
  } catch (error) {
    deps.logger.error({ err: error, taskId: task.taskId }, 'could not refund the task whose workflow did not start');
    return undefined;
  }
  if (task.webhookKinds.length) await startWebhooks(deps, { taskId: task.taskId, kinds: task.webhookKinds, accountId: task.accountId });
  return new TaskError(50301);
}

/**
 * Starts the webhook deliveries of a task finished in the API. The task is finished and stays in
 * tasks_ready whatever happens here, so a failure is logged, not answered.
 */
async function startWebhooks(deps: ProductTaskDeps, task: { taskId: string; kinds: WebhookKind[]; accountId: number }): Promise<void> {
  try {
    await deps.launcher.startWebhooks(task);
  } catch (error) {
    deps.logger.error({ err: error, taskId: task.taskId }, 'could not start webhook deliveries');
  }
}

/** GET tasks_ready: finished, uncollected task_post tasks, oldest first, at most 1,000 (one statement). */
export async function tasksReady(deps: ProductTaskDeps, account: AuthAccount, startedAt: number): Promise<Envelope> {
  const rows = await readyTasks(sqlOf(deps.prisma), account.id, 1000);
  const result = rows.map((r) => ({
    id: r.id,
    asin: r.asin,
    marketplace: r.marketplace,
    tag: r.tag,
    status_code: r.statusCode,
    date_posted: r.datePosted,
    date_completed: r.dateCompleted,
    endpoint: `/v1/retail/product/task_get/${r.id}`,
  }));
  const task = taskObject({ id: newTaskId(), code: 20000, startedAt, path: [...API_PREFIX, 'tasks_ready'], data: { api: 'retail', function: 'tasks_ready' }, result });
  return envelope(startedAt, [task]);
}

/**
 * GET task_get/{id}: the task's Product when finished (first call marks it collected);
 * 40401 while running; 40402 / 50301 when failed; unknown id → HTTP 404 / 40400.
 * One statement reads the task with its observation and collects it (core/task-reads.ts).
 */
export async function taskGet(deps: ProductTaskDeps, account: AuthAccount, id: string, startedAt: number): Promise<Envelope> {
  if (!isUuid(id)) throw new AppError('NOT_FOUND');
  const task = await collectTask(sqlOf(deps.prisma), id.toLowerCase(), account.id);
  if (!task) throw new AppError('NOT_FOUND');
  return taskGetEnvelope(task, startedAt);
}
