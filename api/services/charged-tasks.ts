/**
 * The per-element loop of charged array endpoints (task_post, history), with the spec's
 * request-level rules applied once (api-spec.md "Errors"): HTTP 402 / 40200 when the balance covers
 * no valid task, HTTP 400 with the first task's code when no task is valid; otherwise each element
 * answers at task level. An unexpected error in one element (a database error, say) fails that
 * element alone with 50000, so the elements already charged are answered, never stranded behind a
 * 500 that the client would retry and pay again.
 */
import { databaseFaultError } from '../../core/db/faults.js';
import { DomainError } from '../../core/errors.js';
import type { StatusCode } from '../../core/domain/status-codes.js';
import { newTaskId } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import { taskOutcome, type TaskOutcome } from '../../core/domain/outcomes.js';
import { failRequestIfNoneValid } from '../../core/validation/task-body.js';

/** Given to the handler of one element. */
export interface ChargedElement {
  /** The task id (UUID, MMDDHHmm first). */
  id: string;
  /** The element as received plus `api` and `function`, echoed in the task. */
  data: Record<string, unknown>;
  /** Call once the element is valid, before charging it. */
  payable(): void;
  /** Call once the element has been charged. */
  paid(): void;
}

/** A successful element: its code, the USD charged, and its result rows if any. */
export interface ChargedOutcome {
  code: StatusCode;
  cost: number;
  result?: unknown[];
  /**
   * Work of this element still under way while later elements are handled (task_post: its
   * workflow start). The answer waits for it; a `TaskError` it resolves to replaces the outcome
   * (the element was refunded: its cost is then 0). It must not reject.
   */
  settle?: Promise<DomainError | undefined>;
}

/**
 * Runs `handle` for every element in order. A `TaskError` thrown by the handler fails that element
 * only (40200 for an unaffordable one). Any other error is logged and fails that element only with
 * 50000: the handler must leave nothing charged when it throws one (refund what it charged, or
 * catch errors after the charge itself). A database fault (too slow, no free connection:
 * core/db/faults.ts) answers 50000 with its own message, and the elements after it are answered the
 * same without being tried (each would wait out the same limit). Every `settle` is awaited before
 * the answer is built.
 * @throws AppError 40200 (HTTP 402) when elements were valid but none could be paid;
 *   AppError 40501/40502/40503 (HTTP 400) when no element was valid;
 *   AppError 50000 (HTTP 500) when no element succeeded and one failed unexpectedly (nothing was
 *   charged), with the database fault's message when it was one.
 */
export async function runChargedTasks(
  elements: Record<string, unknown>[],
  options: { fn: string; path: string[]; logger: Logger },
  handle: (element: Record<string, unknown>, ctx: ChargedElement) => Promise<ChargedOutcome>,
): Promise<TaskOutcome[]> {
  const { fn, path, logger } = options;
  const tasks: TaskOutcome[] = [];
  const errors: (DomainError | undefined)[] = [];
  const pending: Promise<void>[] = [];
  let unexpected: unknown;
  let fault: DomainError | undefined;
  let payable = 0;
  let paid = 0;
  for (const element of elements) {
    const id = newTaskId();
    const data = { ...element, api: 'retail', function: fn };
    const fail = (error: DomainError) => taskOutcome({ id, code: error.code, message: error.message, path, data });
    if (fault) {
      errors.push(fault);
      tasks.push(fail(fault));
      continue;
    }
    try {
      const outcome = await handle(element, { id, data, payable: () => void payable++, paid: () => void paid++ });
      const index = tasks.length;
      errors.push(undefined);
      tasks.push(taskOutcome({ id, code: outcome.code, cost: outcome.cost, path, data, result: outcome.result }));
      if (outcome.settle) {
        pending.push(outcome.settle.then((error) => {
          if (!error) return;
          errors[index] = error;
          tasks[index] = fail(error);
        }));
      }
    } catch (error) {
      let failure: DomainError;
      if (error instanceof DomainError) {
        failure = error;
      } else {
        logger.error({ err: error, taskId: id, fn }, 'unexpected error in one task; the task answers 50000');
        unexpected ??= error;
        const faultAnswer = databaseFaultError(error);
        failure = new DomainError('INTERNAL_ERROR', { message: faultAnswer?.message });
        if (faultAnswer) fault = failure;
      }
      errors.push(failure);
      tasks.push(fail(failure));
    }
  }
  await Promise.all(pending);
  if (unexpected !== undefined && errors.every((e) => e)) throw databaseFaultError(unexpected) ?? new DomainError('INTERNAL_ERROR', { cause: unexpected });
  if (payable > 0 && paid === 0) throw new DomainError('PAYMENT_REQUIRED');
  failRequestIfNoneValid(errors);
  return tasks;
}
