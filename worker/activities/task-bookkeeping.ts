/**
 * Task bookkeeping activities: mark running, complete from an observation, fail with refund.
 * productTask workflows started since patch `read-completes-task` mark and complete their task in
 * the read activity itself (worker/activities/product-read.ts); older ones replay with these.
 */
import type { PrismaClient } from '../../core/db/prisma.js';
import { failTask, finishTaskFromObservation, markTaskRunning } from '../../core/tasks.js';

export function createTaskActivities({ prisma }: { prisma: PrismaClient }) {
  return {
    async markTaskRunning(input: { taskId: string }): Promise<void> {
      await markTaskRunning(prisma, input.taskId);
    },
    /** Completes the task; returns the task's final status code (20000 or 40402). */
    async completeTask(input: { taskId: string; observationId: string }): Promise<number> {
      return (await finishTaskFromObservation(prisma, input.taskId, BigInt(input.observationId))).statusCode;
    },
    /** Fails the task with a not-charged code and refunds it (once). */
    async failTask(input: { taskId: string; code: 40402 | 50301 }): Promise<void> {
      await failTask(prisma, input.taskId, input.code);
    },
  };
}
