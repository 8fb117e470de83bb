/**
 * The task_get envelope of one task_post task, as a pure function of the task's view: task_get
 * answers it (and the read marks the task collected), and a postback sends exactly the same JSON
 * (api-spec.md "Events": "the same envelope task_get returns for the task"). That is why the worker's
 * webhook-delivery activity imports this module: it is the one allowed edge from worker/ into api/,
 * and the module stays pure (the envelope, status codes, and the type of the view) to keep it so.
 */
import { PRODUCT_API_PREFIX, SEARCH_API_PREFIX } from '../../../core/domain/outcomes.js';
import { STATUS } from '../../../core/domain/status-codes.js';
import type { TaskGetView } from '../../../core/task-reads.js';
import { envelope, taskObject, type Envelope } from './envelope.js';

/**
 * Builds task_get's envelope: TASK_NOT_READY (40401) while the task runs; otherwise its final code,
 * with the Product when it is OK (a search task: its SearchResults, one per page read). Never writes.
 * @param startedAt performance.now() at the start of the request or delivery (the `time` fields).
 */
export function taskGetEnvelope(task: TaskGetView, startedAt: number): Envelope {
  const path = [...(task.kind === 'search' ? SEARCH_API_PREFIX : PRODUCT_API_PREFIX), 'task_get', task.id];
  const data = task.data as Record<string, unknown>;
  if (!task.completedAt) return envelope(startedAt, [taskObject({ id: task.id, code: STATUS.TASK_NOT_READY, startedAt, path, data })]);
  const result = task.statusCode !== STATUS.OK ? null
    : task.kind === 'search' ? (task.searchResults ?? [])
      : task.product ? [task.product] : null;
  return envelope(startedAt, [taskObject({ id: task.id, code: task.statusCode, message: task.statusMessage, startedAt, path, data, result })]);
}
