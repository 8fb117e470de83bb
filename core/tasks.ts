/**
 * Task completion, shared by the API (reuse window, live budget) and the worker's activities.
 * Every transition out of `queued`/`running` is a conditional update, so a task finishes exactly
 * once and a failure is refunded exactly once (api-spec.md "Task lifecycle", charging rules).
 */
import type { PrismaClient } from './db/prisma.js';
import { credit } from './ledger.js';
import { statusMessage } from './status-codes.js';

const OPEN_STATES = ['queued', 'running'];

/**
 * Completes a task from an observation: 20000, or 40402 (refunded) when the observation says the
 * product does not exist.
 * @returns false when the task had already finished (nothing changed).
 */
export async function completeTaskFromObservation(prisma: PrismaClient, taskId: string, observationId: bigint): Promise<boolean> {
  const observation = await prisma.observation.findUnique({ where: { id: observationId }, select: { status: true } });
  if (!observation) throw new Error(`observation ${observationId} not found`);
  if (observation.status === 'not_found') return failTask(prisma, taskId, 40402, observationId);
  const result = await prisma.task.updateMany({
    where: { id: taskId, state: { in: OPEN_STATES } },
    data: { state: 'completed', statusCode: 20000, statusMessage: statusMessage(20000), observationId, completedAt: new Date() },
  });
  return result.count === 1;
}

/**
 * Fails a task with a not-charged code (40402, 50301) and refunds its cost in the same transaction.
 * @returns false when the task had already finished (no second refund).
 */
export async function failTask(prisma: PrismaClient, taskId: string, code: 40402 | 50301, observationId?: bigint): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const task = await tx.task.findUnique({ where: { id: taskId }, select: { accountId: true, cost: true, state: true } });
    if (!task || !OPEN_STATES.includes(task.state)) return false;
    const updated = await tx.task.updateMany({
      where: { id: taskId, state: { in: OPEN_STATES } },
      data: { state: 'failed', statusCode: code, statusMessage: statusMessage(code), cost: '0', observationId: observationId ?? null, completedAt: new Date() },
    });
    if (updated.count !== 1) return false;
    if (Number(task.cost) > 0) {
      await credit(tx, { accountId: task.accountId, amount: task.cost.toFixed(6), kind: 'refund', taskId, note: `task ${code}` });
    }
    return true;
  });
}

/** Marks a queued task as running (informational; the worker calls it when a read starts). */
export async function markTaskRunning(prisma: PrismaClient, taskId: string): Promise<void> {
  await prisma.task.updateMany({ where: { id: taskId, state: 'queued' }, data: { state: 'running' } });
}
