/**
 * The element loops of charged array endpoints (task_post, history, stats), with the spec's
 * request-level rules applied once (api-spec.md "Errors"): HTTP 402 / 40200 when the balance covers
 * no valid task, HTTP 400 with the first task's code when no task is valid; otherwise each element
 * answers at task level. An unexpected error fails the elements it concerns with 50000, so the
 * elements already charged are answered, never stranded behind a 500 that the client would retry
 * and pay again. Two loops share those rules: `runChargedTasks` handles one element after another
 * (one charge per element), `runChargedBody` validates every element first and charges all the
 * valid ones at once (task_post: one statement per body).
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
   * workflow start). A `TaskError` it resolves to replaces the outcome (the element was refunded:
   * its cost is then 0) if the answer is not yet built. The answer waits for the first settle of
   * the request to end, and for all of them only when that one failed (see `Answer.settled`). It
   * must not reject, and it must leave the element's task right whenever it ends: a late error
   * shows in the task itself (task_post: failed with 50301 and refunded, as any failed read).
   */
  settle?: Promise<DomainError | undefined>;
}

/** The answer being built: one task per element, in order, and the request-level rules at the end. */
class Answer {
  readonly tasks: TaskOutcome[] = [];
  readonly errors: (DomainError | undefined)[] = [];
  /** One per `settle`: true when it replaced its element's outcome with an error. */
  readonly pending: Promise<boolean>[] = [];
  /** Set once the answer is built: a settle ending later leaves it as it is. */
  private built = false;
  unexpected: unknown;
  payable = 0;
  paid = 0;

  constructor(private readonly fn: string, private readonly path: string[], private readonly logger: Logger) {}

  /** Records a failed element (`error` is its task-level code). */
  fail(id: string, data: Record<string, unknown>, error: DomainError): void {
    this.errors.push(error);
    this.tasks.push(taskOutcome({ id, code: error.code, message: error.message, path: this.path, data }));
  }

  /** Records a successful element; its `settle` may still replace it with an error. */
  succeed(id: string, data: Record<string, unknown>, outcome: ChargedOutcome): void {
    const index = this.tasks.length;
    this.errors.push(undefined);
    this.tasks.push(taskOutcome({ id, code: outcome.code, cost: outcome.cost, path: this.path, data, result: outcome.result }));
    if (!outcome.settle) return;
    this.pending.push(outcome.settle.then((error) => {
      if (!error || this.built) return false;
      this.errors[index] = error;
      this.tasks[index] = taskOutcome({ id, code: error.code, message: error.message, path: this.path, data });
      return true;
    }));
  }

  /**
   * The element error of an unexpected failure (50000, with the database fault's message when it
   * was one); logged, and kept for the request-level rule.
   */
  unexpectedFailure(error: unknown, taskIds: string[]): { failure: DomainError; fault: boolean } {
    this.logger.error({ err: error, taskIds, fn: this.fn }, 'unexpected error; the tasks concerned answer 50000');
    this.unexpected ??= error;
    const faultAnswer = databaseFaultError(error);
    return { failure: new DomainError('INTERNAL_ERROR', { message: faultAnswer?.message }), fault: faultAnswer !== undefined };
  }

  /**
   * Waits for the settles the answer needs. The elements are charged and stored already, so a
   * settle still under way cannot lose them (a task left without its workflow is started or
   * refunded by the worker's task reconciler). The first settle to end tells whether the rest are
   * worth the wait: when it failed (Temporal refusing starts), every one is awaited so that the
   * refusal is answered in this request (50301, cost 0); when it succeeded, the rest are not, and
   * a 100-task body answers after one start instead of a hundred.
   */
  private async settled(): Promise<void> {
    if (this.pending.length > 0 && (await Promise.race(this.pending))) await Promise.all(this.pending);
    this.built = true;
  }

  /** Waits for the settles (`settled`), then applies the request-level rules (see `runChargedTasks`). */
  async done(): Promise<TaskOutcome[]> {
    await this.settled();
    if (this.unexpected !== undefined && this.errors.every((e) => e)) {
      throw databaseFaultError(this.unexpected) ?? new DomainError('INTERNAL_ERROR', { cause: this.unexpected });
    }
    if (this.payable > 0 && this.paid === 0) throw new DomainError('PAYMENT_REQUIRED');
    failRequestIfNoneValid(this.errors);
    return this.tasks;
  }
}

/**
 * Runs `handle` for every element in order. A `TaskError` thrown by the handler fails that element
 * only (40200 for an unaffordable one). Any other error is logged and fails that element only with
 * 50000: the handler must leave nothing charged when it throws one (refund what it charged, or
 * catch errors after the charge itself). A database fault (too slow, no free connection:
 * core/db/faults.ts) answers 50000 with its own message, and the elements after it are answered the
 * same without being tried (each would wait out the same limit). The answer waits for the
 * settles as `ChargedOutcome.settle` says.
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
  const answer = new Answer(fn, path, logger);
  let fault: DomainError | undefined;
  for (const element of elements) {
    const id = newTaskId();
    const data = { ...element, api: 'retail', function: fn };
    if (fault) {
      answer.fail(id, data, fault);
      continue;
    }
    try {
      const outcome = await handle(element, { id, data, payable: () => void answer.payable++, paid: () => void answer.paid++ });
      answer.succeed(id, data, outcome);
    } catch (error) {
      if (error instanceof DomainError) {
        answer.fail(id, data, error);
      } else {
        const unexpected = answer.unexpectedFailure(error, [id]);
        if (unexpected.fault) fault = unexpected.failure;
        answer.fail(id, data, unexpected.failure);
      }
    }
  }
  return answer.done();
}

/** A valid element of a body, as `runChargedBody` gives it to `charge`. */
export interface ValidElement<F> {
  /** The task id (UUID, MMDDHHmm first). */
  id: string;
  /** The element as received plus `api` and `function`, echoed in the task. */
  data: Record<string, unknown>;
  /** What `validate` read from it. */
  fields: F;
}

/**
 * Validates every element in order (`validate` throws a `TaskError` for an invalid one: 405xx;
 * any other error fails that element with 50000), then hands all the valid ones to `charge` at
 * once, which charges them in order and answers each: its outcome when it was charged, a
 * `DomainError` (40200) when it was not. When `charge` throws,
 * it must have charged nothing (one statement): every valid element then answers 50000 (with the
 * database fault's message when it was one). The answer waits for the settles as
 * `ChargedOutcome.settle` says.
 * @throws the request-level errors of `runChargedTasks`
 */
export async function runChargedBody<F>(
  elements: Record<string, unknown>[],
  options: { fn: string; path: string[]; logger: Logger },
  steps: {
    validate: (element: Record<string, unknown>) => F;
    charge: (valid: ValidElement<F>[]) => Promise<(ChargedOutcome | DomainError)[]>;
  },
): Promise<TaskOutcome[]> {
  const { fn, path, logger } = options;
  const all = elements.map((element) => ({ id: newTaskId(), data: { ...element, api: 'retail', function: fn } as Record<string, unknown>, element }));
  const answer = new Answer(fn, path, logger);
  const valid: ValidElement<F>[] = [];
  const invalid = new Map<string, DomainError>();
  for (const { id, data, element } of all) {
    try {
      valid.push({ id, data, fields: steps.validate(element) });
    } catch (error) {
      invalid.set(id, error instanceof DomainError ? error : answer.unexpectedFailure(error, [id]).failure);
    }
  }
  answer.payable = valid.length;
  const outcomes = new Map<string, ChargedOutcome | DomainError>();
  if (valid.length > 0) {
    try {
      const charged = await steps.charge(valid);
      valid.forEach((v, i) => outcomes.set(v.id, charged[i]!));
    } catch (error) {
      const failure = error instanceof DomainError ? error : answer.unexpectedFailure(error, valid.map((v) => v.id)).failure;
      for (const v of valid) outcomes.set(v.id, failure);
    }
  }
  for (const { id, data } of all) {
    const outcome = invalid.get(id) ?? outcomes.get(id)!;
    if (outcome instanceof DomainError) {
      answer.fail(id, data, outcome);
    } else {
      answer.paid++;
      answer.succeed(id, data, outcome);
    }
  }
  return answer.done();
}
