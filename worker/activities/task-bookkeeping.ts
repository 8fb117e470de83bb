/**
 * Task bookkeeping activity of today's productTask: failing a task whose read failed every
 * attempt (50301, refunded). Marking running and completing happen inside the read activity
 * (worker/activities/product-read.ts); the separate activities that did so serve only older
 * histories (worker/activities/legacy-task-bookkeeping.ts).
 */
import type { Db } from '../../core/db/db.js';
import { failTask } from '../../core/tasks.js';
import type { NotChargedTaskCode } from '../../workflows/activity-contract.js';

export function createTaskActivities({ db }: { db: Db }) {
  return {
    /** Fails the task with a not-charged code and refunds it (once). */
    async failTask(input: { taskId: string; code: NotChargedTaskCode }): Promise<void> {
      await failTask(db, input.taskId, input.code);
    },
  };
}
