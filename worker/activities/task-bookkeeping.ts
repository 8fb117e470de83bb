/**
 * Task bookkeeping activities: mark running, complete from an observation, fail with refund.
 */
import type { PrismaClient } from '../../core/db/prisma.js';
import { completeTaskFromObservation, failTask, markTaskRunning } from '../../core/tasks.js';

export function createTaskActivities({ prisma }: { prisma: PrismaClient }) {
  return {
    async markTaskRunning(input: { taskId: string }): Promise<void> {
      await markTaskRunning(prisma, input.taskId);
    },
    /** Completes the task; returns the task's final status code (20000 or 40402). */
    async completeTask(input: { taskId: string; observationId: string }): Promise<number> {
      await completeTaskFromObservation(prisma, input.taskId, BigInt(input.observationId));
      const task = await prisma.task.findUniqueOrThrow({ where: { id: input.taskId }, select: { statusCode: true } });
      return task.statusCode;
    },
    /** Fails the task with a not-charged code and refunds it (once). */
    async failTask(input: { taskId: string; code: 40402 | 50301 }): Promise<void> {
      await failTask(prisma, input.taskId, input.code);
    },
  };
}
