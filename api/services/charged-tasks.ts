/**
 * The per-element loop of charged array endpoints (task_post, history), with the spec's
 * request-level rules applied once (api-spec.md "Errors"): HTTP 402 / 40200 when the balance covers
 * no valid task, HTTP 400 with the first task's code when no task is valid; otherwise each element
 * answers at task level.
 */
import { AppError, TaskError } from '../../core/errors.js';
import { newTaskId } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import { taskObject, type TaskObject } from '../envelope.js';
import { failRequestIfNoneValid } from '../validation/task-body.js';

/** Given to the handler of one element. */
export interface ChargedElement {
  /** The task id (UUID, MMDDHHmm first). */
  id: string;
  /** The element as received plus `api` and `function`, echoed in the task. */
  data: Record<string, unknown>;
  /** Call once the element is valid, before charging it. */
  payable(): void;
  /**
   * Call once the element has been charged, with what gives the money back (a refund) should the
   * request fail afterwards: the caller then sees no task, so no element may stay charged.
   */
  paid(undo: () => Promise<unknown>): void;
}

/** A successful element: its code, the USD charged, and its result rows if any. */
export interface ChargedOutcome {
  code: number;
  cost: number;
  result?: unknown[];
}

/**
 * Runs `handle` for every element in order. A `TaskError` thrown by the handler fails that element
 * only (40200 for an unaffordable one); any other error (a database fault, core/db/faults.ts) fails
 * the request, after the elements already paid are given their money back (`paid`'s undo; a
 * failed undo is logged as an error).
 * @throws AppError 40200 (HTTP 402) when elements were valid but none could be paid;
 *   AppError 40501/40502/40503 (HTTP 400) when no element was valid.
 */
export async function runChargedTasks(
  elements: Record<string, unknown>[],
  options: { fn: string; path: string[]; startedAt: number; logger: Logger },
  handle: (element: Record<string, unknown>, ctx: ChargedElement) => Promise<ChargedOutcome>,
): Promise<TaskObject[]> {
  const { fn, path, startedAt } = options;
  const tasks: TaskObject[] = [];
  const errors: (TaskError | undefined)[] = [];
  const undos: { id: string; undo: () => Promise<unknown> }[] = [];
  let payable = 0;
  let paid = 0;
  for (const element of elements) {
    const id = newTaskId();
    const data = { ...element, api: 'retail', function: fn };
    try {
      const outcome = await handle(element, { id, data, payable: () => void payable++, paid: (undo) => { paid++; undos.push({ id, undo }); } });
      errors.push(undefined);
      tasks.push(taskObject({ id, code: outcome.code, startedAt, cost: outcome.cost, path, data, result: outcome.result }));
    } catch (error) {
      if (!(error instanceof TaskError)) {
        await undoAll(undos, options.logger);
        throw error;
      }
      errors.push(error);
      tasks.push(taskObject({ id, code: error.code, message: error.message, startedAt, path, data }));
    }
  }
  if (payable > 0 && paid === 0) throw new AppError('PAYMENT_REQUIRED');
  failRequestIfNoneValid(errors);
  return tasks;
}

/** Runs every undo (each on its own: one failing does not stop the others). */
async function undoAll(undos: { id: string; undo: () => Promise<unknown> }[], logger: Logger): Promise<void> {
  for (const { id, undo } of undos) {
    try {
      await undo();
    } catch (error) {
      logger.error({ err: error, taskId: id }, 'could not refund an element of a failed request');
    }
  }
}
