/**
 * What a request's services answer, before any presenter shapes it (api-spec.md "Envelope",
 * "Task"): one outcome per element of the request, each with its task-level code, the USD charged
 * and its result rows, and the request-level code. REST renders a `BatchOutcome` as the envelope
 * (api/rest/envelope), GraphQL as a mutation payload (api/graphql/schema/outcome.ts). Pure.
 */
import { roundUsd, sumUsd } from './money.js';
import { isErrorCode, STATUS, statusMessage, type StatusCode } from './status-codes.js';

/** Path segments of the product endpoints (`/v1/retail/product/...`). */
export const PRODUCT_API_PREFIX = ['v1', 'retail', 'product'];

/** Path segments of the search endpoints (`/v1/retail/search/...`). */
export const SEARCH_API_PREFIX = ['v1', 'retail', 'search'];

/** The outcome of one element. `cost` USD; `result` null when the element failed or is unfinished. */
export interface TaskOutcome {
  /** The task id (UUID; stored only for tasks that are kept). */
  id: string;
  code: StatusCode;
  message: string;
  cost: number;
  /** The endpoint's path segments (`['v1', 'retail', 'product', 'task_post']`). */
  path: string[];
  /** The element as received plus `api` and `function`. */
  data: Record<string, unknown>;
  result: unknown[] | null;
}

/** The outcome of a whole request: its request-level code and every element's outcome, in input order. */
export interface BatchOutcome {
  code: StatusCode;
  message: string;
  /** USD: the sum of the tasks' costs. */
  cost: number;
  /** Tasks whose code is 40000 or above. */
  errors: number;
  tasks: TaskOutcome[];
}

/** Builds an element's outcome; `result` null unless given; `message` from the code unless given. */
export function taskOutcome(fields: {
  id: string;
  code: StatusCode;
  message?: string;
  cost?: number;
  path: string[];
  data: Record<string, unknown>;
  result?: unknown[] | null;
}): TaskOutcome {
  return {
    id: fields.id,
    code: fields.code,
    message: fields.message ?? statusMessage(fields.code),
    cost: roundUsd(fields.cost ?? 0),
    path: fields.path,
    data: fields.data,
    result: fields.result ?? null,
  };
}

/** Builds a request's outcome; `cost` is the sum of its tasks' costs. */
export function batchOutcome(tasks: TaskOutcome[], code: StatusCode = STATUS.OK, message?: string): BatchOutcome {
  return {
    code,
    message: message ?? statusMessage(code),
    cost: sumUsd(tasks.map((t) => t.cost)),
    errors: tasks.filter((t) => isErrorCode(t.code)).length,
    tasks,
  };
}
