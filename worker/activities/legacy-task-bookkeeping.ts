/**
 * Bookkeeping activities scheduled only by productTask histories recorded before patch
 * `read-completes-task` (workflows/legacy-product-task.ts): marking a task running and completing
 * it from its observation, around the read. The worker registers them so that such a workflow,
 * still open during a deploy, can go on. Delete this module in step 2 of that patch's retirement
 * (the steps and the visibility query that shows when it is safe are in
 * workflows/legacy-product-task.ts).
 */
import type { Db } from '../../core/db/db.js';
import { finishTaskFromObservation, markTaskRunning } from '../../core/tasks.js';

export function createLegacyTaskActivities({ db }: { db: Db }) {
  return {
    /** Marks the task running. */
    async markTaskRunning(input: { taskId: string }): Promise<void> {
      await markTaskRunning(db, input.taskId);
    },
    /** Completes the task; returns the task's final status code (20000 or 40402). */
    async completeTask(input: { taskId: string; observationId: string }): Promise<number> {
      return (await finishTaskFromObservation(db, input.taskId, BigInt(input.observationId))).statusCode;
    },
  };
}
