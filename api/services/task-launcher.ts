/**
 * Starting and awaiting `productTask` workflows from the API (Temporal client).
 */
import { Client, WorkflowFailedError } from '@temporalio/client';
import type { Config } from '../../core/config.js';
import type { ProductTaskInput } from '../../workflows/messages.js';

/** What the API needs of Temporal; tests use the real implementation against a dev server. */
export interface TaskLauncher {
  /** Starts the task's workflow (workflowId = task id). */
  start(input: Omit<ProductTaskInput, 'readAttempts' | 'retryInitialMs'>): Promise<void>;
  /** Waits up to `budgetMs` for the workflow to finish; false when the budget ran out. */
  waitFor(taskId: string, budgetMs: number): Promise<boolean>;
  /** Requests cancellation of the task's workflow (ignored when already closed). */
  cancel(taskId: string): Promise<void>;
}

/** The Temporal implementation of `TaskLauncher`. */
export function temporalTaskLauncher(client: Client, config: Config): TaskLauncher {
  return {
    async start(input) {
      await client.workflow.start('productTask', {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: input.taskId,
        args: [{ ...input, readAttempts: config.SOURCE_READ_ATTEMPTS, retryInitialMs: 1_000 } satisfies ProductTaskInput],
      });
    },
    async waitFor(taskId, budgetMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), budgetMs); });
      const result = client.workflow.getHandle(taskId).result().then(
        () => true,
        (error) => { if (error instanceof WorkflowFailedError) return true; throw error; },
      );
      try {
        return await Promise.race([result, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async cancel(taskId) {
      await client.workflow.getHandle(taskId).cancel().catch(() => undefined);
    },
  };
}
