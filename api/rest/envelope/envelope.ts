/**
 * The REST response envelope and its task objects (api-spec.md "Envelope", "Task"): the shape every
 * REST answer and every postback has. Pure (status codes and the API version only).
 */
import { API_VERSION } from '../../../core/version.js';
import { isErrorCode, STATUS, statusMessage, type StatusCode } from '../../../core/domain/status-codes.js';
import { roundUsd, sumUsd } from '../../../core/domain/money.js';
import type { BatchOutcome, TaskOutcome } from '../../../core/domain/outcomes.js';

/** One task of an envelope. `cost` USD; `result` null when failed or unfinished. */
export interface TaskObject {
  id: string;
  status_code: StatusCode;
  status_message: string;
  time: string;
  cost: number;
  result_count: number;
  path: string[];
  data: Record<string, unknown>;
  result: unknown[] | null;
}

export interface Envelope {
  version: string;
  status_code: StatusCode;
  status_message: string;
  time: string;
  cost: number;
  tasks_count: number;
  tasks_error: number;
  tasks: TaskObject[];
}

/** Elapsed time text: `'<seconds> sec.'` since `startedAt` (ms, performance.now()). */
export function elapsed(startedAt: number): string {
  return `${((performance.now() - startedAt) / 1000).toFixed(4)} sec.`;
}

/** Builds a task object; `result` null unless given; `status_message` from the code unless given. */
export function taskObject(fields: {
  id: string;
  code: StatusCode;
  message?: string;
  startedAt: number;
  cost?: number;
  path: string[];
  data: Record<string, unknown>;
  result?: unknown[] | null;
}): TaskObject {
  const result = fields.result ?? null;
  return {
    id: fields.id,
    status_code: fields.code,
    status_message: fields.message ?? statusMessage(fields.code),
    time: elapsed(fields.startedAt),
    cost: roundUsd(fields.cost ?? 0),
    result_count: result ? result.length : 0,
    path: fields.path,
    data: fields.data,
    result,
  };
}

/** Builds an envelope; `cost` is the sum of its tasks' costs, `tasks_error` counts codes ≥ 40000. */
export function envelope(startedAt: number, tasks: TaskObject[], code: StatusCode = STATUS.OK, message?: string): Envelope {
  return {
    version: API_VERSION,
    status_code: code,
    status_message: message ?? statusMessage(code),
    time: elapsed(startedAt),
    cost: sumUsd(tasks.map((t) => t.cost)),
    tasks_count: tasks.length,
    tasks_error: tasks.filter((t) => isErrorCode(t.status_code)).length,
    tasks,
  };
}

/** Renders an element's outcome as a REST task object, `time` measured from `startedAt`. */
export function renderTask(outcome: TaskOutcome, startedAt: number): TaskObject {
  return taskObject({ ...outcome, startedAt });
}

/** Renders a request's outcome as the REST envelope, `time` measured from `startedAt` (ms, performance.now()). */
export function renderEnvelope(outcome: BatchOutcome, startedAt: number): Envelope {
  return envelope(startedAt, outcome.tasks.map((t) => renderTask(t, startedAt)), outcome.code, outcome.message);
}
