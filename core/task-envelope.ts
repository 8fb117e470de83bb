/**
 * The task_get envelope of one task_post task, as a pure function of the stored row: task_get
 * answers it (and then marks the task collected), and a postback sends exactly the same JSON
 * (api-spec.md "Events": "the same envelope task_get returns for the task").
 */
import type { PrismaClient } from './db/prisma.js';
import { envelope, taskObject, type Envelope } from './envelope.js';
import { toProduct } from './observations.js';
import { asStatusCode, STATUS } from './domain/status-codes.js';

/** Path segments of the product endpoints. */
export const PRODUCT_API_PREFIX = ['v1', 'retail', 'product'];

type TaskRow = NonNullable<Awaited<ReturnType<PrismaClient['task']['findUnique']>>>;
type ObservationRow = NonNullable<Awaited<ReturnType<PrismaClient['observation']['findUnique']>>>;

/** What the envelope needs of a task row (loaded with `include: { observation: true }`). */
export type EnvelopeTask = Pick<TaskRow, 'id' | 'data' | 'completedAt' | 'statusCode' | 'statusMessage'> & {
  observation: ObservationRow | null;
};

/**
 * Builds task_get's envelope: 40401 while the task runs; otherwise its final code with the
 * Product when 20000. Never writes (collecting is task_get's business).
 * @param startedAt performance.now() at the start of the request or delivery (the `time` fields).
 */
export function taskGetEnvelope(task: EnvelopeTask, startedAt: number): Envelope {
  const path = [...PRODUCT_API_PREFIX, 'task_get', task.id];
  const data = task.data as Record<string, unknown>;
  if (!task.completedAt) return envelope(startedAt, [taskObject({ id: task.id, code: STATUS.TASK_NOT_READY, startedAt, path, data })]);
  const result = task.statusCode === STATUS.OK && task.observation ? [toProduct(task.observation)] : null;
  return envelope(startedAt, [taskObject({ id: task.id, code: asStatusCode(task.statusCode), message: task.statusMessage, startedAt, path, data, result })]);
}
