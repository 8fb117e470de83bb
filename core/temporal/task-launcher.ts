/**
 * Starting and awaiting `productTask` and `searchTask` workflows (Temporal client) from the API and from the
 * worker's task reconciler, and starting the `webhookDelivery` workflows of tasks finished outside
 * a productTask workflow (reuse window, refused start, reconciler).
 */
import { Client, WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type { MonitorRuns } from '../monitoring-reconciler.js';
import { monitorWorkflowId } from '../domain/subscription-messages.js';
import type { Config } from '../config.js';
import type { TaskCompletions } from '../task-completions.js';
import { PRIORITY_KEYS, type ProductTaskInput, type ReadUrgency, type SearchTaskInput } from '../domain/task-messages.js';
import { webhookFairness, webhookWorkflowId, type WebhookDeliveryInput, type WebhookKind, type WebhookPlan } from '../domain/webhook-messages.js';
import {
  deliveryAttributes, deliverySummary, displayUrl, searchTaskAttributes, searchTaskDetails, searchTaskSummary, startLabels, taskAttributes, taskDetails, taskSummary,
} from '../domain/operator-view.js';

/** The webhook URLs of a task, by kind (as stored; shown to operators through `displayUrl` only). */
export type WebhookUrls = Partial<Record<WebhookKind, string | null>>;

/**
 * What the operators' view shows of a task (core/domain/operator-view.ts): its account's login,
 * tag, task_post priority and webhook URLs. All optional: a start without them shows less.
 */
export interface TaskLabels {
  login?: string;
  tag?: string | null;
  /** task_post priority (1 or 2). */
  priority?: number;
  webhookUrls?: WebhookUrls;
}

/** How a task's workflow start is labelled and ordered (both kinds). */
type StartExtras = TaskLabels & { webhookKinds?: WebhookKind[]; urgency?: ReadUrgency; accountId?: number };

/** A product task's workflow start (`productTask`). */
export type ProductTaskStart = Omit<ProductTaskInput, 'readAttempts' | 'retryInitialMs' | 'webhooks'> & StartExtras & { kind?: 'product' };

/** A search task's workflow start (`searchTask`): its keyword and pages instead of an ASIN. */
export type SearchTaskStart = Omit<SearchTaskInput, 'readAttempts' | 'retryInitialMs' | 'webhooks'> & StartExtras & { kind: 'search' };

/** What the API needs of Temporal; tests use the real implementation against a dev server. */
export interface TaskLauncher {
  /**
   * Starts the task's workflow (workflowId = task id, never reused) with the Temporal priority of
   * its `urgency` (default `normal`); it starts `webhookKinds` deliveries when it finishes. A
   * workflow already started for the task counts as started (the reconciler and the API may race).
   * @throws what Temporal answers when it refuses the start (unknown namespace, server down, ...).
   */
  start(input: ProductTaskStart | SearchTaskStart): Promise<void>;
  /**
   * Starts the deliveries of a task that is already finished (workflowId `webhook:<taskId>:<kind>`);
   * `accountId` is the task's account (its share of the webhook slots); the product, tag and URLs
   * label the deliveries in the operators' view.
   */
  startWebhooks(input: { taskId: string; kinds: WebhookKind[]; accountId?: number; asin?: string | null; marketplace?: string; tag?: string | null; urls?: WebhookUrls }): Promise<void>;
  /**
   * Waits up to `budgetMs` for the task to be finished: its workflow closed, or (with
   * `TaskLauncherOptions.completions`) its read told that it completed the task; false when the
   * budget ran out first.
   */
  waitFor(taskId: string, budgetMs: number): Promise<boolean>;
  /** Requests cancellation of the task's workflow (ignored when already closed). */
  cancel(taskId: string): Promise<void>;
}

/** Where a task's workflow stands: never started (or its history is gone), running, or closed. */
export type TaskWorkflowState = 'missing' | 'running' | 'closed';

/** What the task reconciler needs of Temporal: the launcher plus a look at a task's workflow. */
export interface TaskWorkflows extends Pick<TaskLauncher, 'start' | 'startWebhooks'>, MonitorRuns {
  /** @throws when Temporal cannot be asked (the reconciler then leaves the task for its next run) */
  state(taskId: string): Promise<TaskWorkflowState>;
  /**
   * Ids (task ids) of at most `limit` productTask workflows that closed since `sinceMs` (epoch ms)
   * terminated, timed out or cancelled: one visibility query.
   * @throws when Temporal cannot be asked
   */
  closedUnfinished(sinceMs: number, limit: number): Promise<string[]>;
}

/** The receivers of `kinds` as operators see them (`displayUrl`), by kind. */
function webhookTargets(kinds: WebhookKind[], urls: WebhookUrls | undefined): Record<string, string | null> {
  return Object.fromEntries(kinds.map((kind) => [kind, urls?.[kind] ? displayUrl(urls[kind]) : null]));
}

/** The deliveries' schedule from the configuration (workflows cannot read it), the task's account and the receivers' display URLs. */
function webhookPlan(config: Config, kinds: WebhookKind[], accountId: number | undefined, urls?: WebhookUrls): WebhookPlan {
  const targets = Object.fromEntries(Object.entries(webhookTargets(kinds, urls)).filter((e): e is [string, string] => e[1] !== null));
  return {
    kinds, retryDelaysMs: [...config.WEBHOOK_RETRY_DELAYS], timeoutMs: config.WEBHOOK_TIMEOUT,
    ...(accountId === undefined ? {} : { accountId }),
    ...(Object.keys(targets).length ? { targets } : {}),
  };
}

/** How `temporalTaskLauncher` starts workflows. */
export interface TaskLauncherOptions {
  /**
   * Ask for eager start of productTask workflows (`requestEagerStart`): the server returns the
   * first workflow task in the start's answer and the SDK hands it to a worker of this process
   * polling TEMPORAL_TASK_QUEUE, skipping the server's matching and the worker's poll. Only for a
   * client on the `NativeConnection` such a worker polls on (worker/worker.ts `connectTemporal`);
   * the SDK refuses the start on any other connection. When no worker of this process has a free
   * workflow slot (or none polls any more), the SDK asks for a normal start: the task then waits
   * in its queue as it does without this option. Default false.
   */
  eagerStart?: boolean;
  /**
   * News of tasks the worker of this process completed (core/task-completions.ts): `waitFor` then
   * ends as soon as the read has finished the task, before its workflow closes. Only for an API
   * in the same process as the worker that tells it.
   */
  completions?: TaskCompletions;
}

/** The Temporal implementation of `TaskLauncher` (and of the reconciler's `TaskWorkflows`). */
export function temporalTaskLauncher(client: Client, config: Config, options: TaskLauncherOptions = {}): TaskLauncher & TaskWorkflows {
  const eager = options.eagerStart ? { requestEagerStart: true } : {};
  /** Starts a search task's `searchTask` workflow, as `start` does a product task's. */
  async function startSearch({ webhookKinds, urgency, accountId, login, tag, priority, webhookUrls, kind: _kind, ...input }: SearchTaskStart): Promise<void> {
    const facts = {
      taskId: input.taskId, keyword: input.keyword, pages: input.pages, marketplace: input.marketplace, accountId, login, tag, priority,
      endpoint: urgency === 'live' ? 'live' as const : 'task_post' as const, webhooks: webhookTargets(webhookKinds ?? [], webhookUrls),
    };
    await client.workflow.start('searchTask', {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId: input.taskId,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      priority: { priorityKey: PRIORITY_KEYS[urgency ?? 'normal'] },
      ...eager,
      ...startLabels(searchTaskAttributes(facts), searchTaskSummary(facts), searchTaskDetails(facts)),
      args: [{
        ...input, readAttempts: config.SOURCE_READ_ATTEMPTS, retryInitialMs: 1_000,
        ...(webhookKinds?.length ? { webhooks: webhookPlan(config, webhookKinds, accountId, webhookUrls) } : {}),
      } satisfies SearchTaskInput],
    }).catch((error: unknown) => { if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error; });
  }
  return {
    async start(start) {
      if (start.kind === 'search') return startSearch(start);
      const { webhookKinds, urgency, accountId, login, tag, priority, webhookUrls, kind: _kind, ...input } = start;
      const facts = {
        taskId: input.taskId, asin: input.asin, marketplace: input.marketplace, accountId, login, tag, priority,
        endpoint: urgency === 'live' ? 'live' as const : 'task_post' as const, webhooks: webhookTargets(webhookKinds ?? [], webhookUrls),
      };
      await client.workflow.start('productTask', {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: input.taskId,
        // A task is read by one workflow run at most, whoever starts it.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        priority: { priorityKey: PRIORITY_KEYS[urgency ?? 'normal'] },
        ...eager,
        ...startLabels(taskAttributes(facts), taskSummary(facts), taskDetails(facts)),
        args: [{
          ...input, readAttempts: config.SOURCE_READ_ATTEMPTS, retryInitialMs: 1_000,
          ...(webhookKinds?.length ? { webhooks: webhookPlan(config, webhookKinds, accountId, webhookUrls) } : {}),
        } satisfies ProductTaskInput],
      }).catch((error: unknown) => { if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error; });
    },
    async startWebhooks({ taskId, kinds, accountId, asin, marketplace, tag, urls }) {
      const plan = webhookPlan(config, kinds, accountId, urls);
      for (const kind of kinds) {
        const facts = { taskId, kind, accountId, asin: asin ?? undefined, marketplace, tag, target: plan.targets?.[kind] ?? null };
        await client.workflow.start('webhookDelivery', {
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          workflowId: webhookWorkflowId(taskId, kind),
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          ...startLabels(deliveryAttributes(facts), deliverySummary(facts)),
          ...(accountId === undefined ? {} : { priority: webhookFairness(accountId) }),
          args: [{ taskId, kind, retryDelaysMs: plan.retryDelaysMs, timeoutMs: plan.timeoutMs, ...(accountId === undefined ? {} : { accountId }) } satisfies WebhookDeliveryInput],
        }).catch((error: unknown) => { if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error; });
      }
    },
    async waitFor(taskId, budgetMs) {
      // The result's long poll is cancelled when the budget runs out or the news came first:
      // nothing stays in flight on the connection after the request (a pending call retried after
      // the connection closed would throw from a timer).
      const budget = new AbortController();
      const timer = setTimeout(() => budget.abort(), budgetMs);
      try {
        const closed = client.withAbortSignal(budget.signal, () => client.workflow.getHandle(taskId).result()).then(
          () => true,
          (error: unknown) => {
            if (error instanceof WorkflowFailedError) return true;
            if (budget.signal.aborted) return false;
            throw error;
          },
        );
        if (!options.completions) return await closed;
        return await Promise.race([closed, options.completions.wait(taskId, budget.signal).then(() => true)]);
      } finally {
        clearTimeout(timer);
        budget.abort();
      }
    },
    async cancel(taskId) {
      await client.workflow.getHandle(taskId).cancel().catch(() => undefined);
    },
    async runState(subscriptionId, runId) {
      try {
        const { status } = await client.workflow.getHandle(monitorWorkflowId(subscriptionId), runId).describe();
        return status.name === 'RUNNING' ? 'running' : 'closed';
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return 'missing';
        throw error;
      }
    },
    async closedUnfinished(sinceMs, limit) {
      const query = `WorkflowType IN ('productTask', 'searchTask') AND ExecutionStatus IN ('Terminated', 'TimedOut', 'Canceled') AND CloseTime > '${new Date(sinceMs).toISOString()}'`;
      const ids: string[] = [];
      for await (const execution of client.workflow.list({ query, pageSize: limit })) {
        ids.push(execution.workflowId);
        if (ids.length >= limit) break;
      }
      return ids;
    },
    async state(taskId) {
      try {
        const { status } = await client.workflow.getHandle(taskId).describe();
        return status.name === 'RUNNING' ? 'running' : 'closed';
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return 'missing';
        throw error;
      }
    },
  };
}
