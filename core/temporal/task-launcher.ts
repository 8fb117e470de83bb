/**
 * Starting and awaiting `productTask` workflows (Temporal client) from the API and from the
 * worker's task reconciler, and starting the `webhookDelivery` workflows of tasks finished outside
 * a productTask workflow (reuse window, refused start, reconciler).
 */
import { Client, WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from '../config.js';
import { PRIORITY_KEYS, type ProductTaskInput, type ReadUrgency } from '../domain/task-messages.js';
import { webhookFairness, webhookWorkflowId, type WebhookDeliveryInput, type WebhookKind, type WebhookPlan } from '../domain/webhook-messages.js';

/** What the API needs of Temporal; tests use the real implementation against a dev server. */
export interface TaskLauncher {
  /**
   * Starts the task's workflow (workflowId = task id, never reused) with the Temporal priority of
   * its `urgency` (default `normal`); it starts `webhookKinds` deliveries when it finishes. A
   * workflow already started for the task counts as started (the reconciler and the API may race).
   * @throws what Temporal answers when it refuses the start (unknown namespace, server down, ...).
   */
  start(input: Omit<ProductTaskInput, 'readAttempts' | 'retryInitialMs' | 'webhooks'> & { webhookKinds?: WebhookKind[]; urgency?: ReadUrgency; accountId?: number }): Promise<void>;
  /**
   * Starts the deliveries of a task that is already finished (workflowId `webhook:<taskId>:<kind>`);
   * `accountId` is the task's account (its share of the webhook slots).
   */
  startWebhooks(input: { taskId: string; kinds: WebhookKind[]; accountId?: number }): Promise<void>;
  /** Waits up to `budgetMs` for the workflow to finish; false when the budget ran out. */
  waitFor(taskId: string, budgetMs: number): Promise<boolean>;
  /** Requests cancellation of the task's workflow (ignored when already closed). */
  cancel(taskId: string): Promise<void>;
}

/** Where a task's workflow stands: never started (or its history is gone), running, or closed. */
export type TaskWorkflowState = 'missing' | 'running' | 'closed';

/** What the task reconciler needs of Temporal: the launcher plus a look at a task's workflow. */
export interface TaskWorkflows extends Pick<TaskLauncher, 'start' | 'startWebhooks'> {
  /** @throws when Temporal cannot be asked (the reconciler then leaves the task for its next run) */
  state(taskId: string): Promise<TaskWorkflowState>;
}

/** The deliveries' schedule from the configuration (workflows cannot read it), and the task's account. */
function webhookPlan(config: Config, kinds: WebhookKind[], accountId: number | undefined): WebhookPlan {
  return { kinds, retryDelaysMs: [...config.WEBHOOK_RETRY_DELAYS], timeoutMs: config.WEBHOOK_TIMEOUT, ...(accountId === undefined ? {} : { accountId }) };
}

/** The Temporal implementation of `TaskLauncher` (and of the reconciler's `TaskWorkflows`). */
export function temporalTaskLauncher(client: Client, config: Config): TaskLauncher & TaskWorkflows {
  return {
    async start({ webhookKinds, urgency, accountId, ...input }) {
      await client.workflow.start('productTask', {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: input.taskId,
        // A task is read by one workflow run at most, whoever starts it.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        priority: { priorityKey: PRIORITY_KEYS[urgency ?? 'normal'] },
        args: [{
          ...input, readAttempts: config.SOURCE_READ_ATTEMPTS, retryInitialMs: 1_000,
          ...(webhookKinds?.length ? { webhooks: webhookPlan(config, webhookKinds, accountId) } : {}),
        } satisfies ProductTaskInput],
      }).catch((error: unknown) => { if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error; });
    },
    async startWebhooks({ taskId, kinds, accountId }) {
      const plan = webhookPlan(config, kinds, accountId);
      for (const kind of kinds) {
        await client.workflow.start('webhookDelivery', {
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          workflowId: webhookWorkflowId(taskId, kind),
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          ...(accountId === undefined ? {} : { priority: webhookFairness(accountId) }),
          args: [{ taskId, kind, retryDelaysMs: plan.retryDelaysMs, timeoutMs: plan.timeoutMs, ...(accountId === undefined ? {} : { accountId }) } satisfies WebhookDeliveryInput],
        }).catch((error: unknown) => { if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error; });
      }
    },
    async waitFor(taskId, budgetMs) {
      // The result's long poll is cancelled when the budget runs out: nothing stays in flight on
      // the connection after the request (a pending call retried after the connection closed
      // would throw from a timer).
      const budget = new AbortController();
      const timer = setTimeout(() => budget.abort(), budgetMs);
      try {
        await client.withAbortSignal(budget.signal, () => client.workflow.getHandle(taskId).result());
        return true;
      } catch (error) {
        if (error instanceof WorkflowFailedError) return true;
        if (budget.signal.aborted) return false;
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },
    async cancel(taskId) {
      await client.workflow.getHandle(taskId).cancel().catch(() => undefined);
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
