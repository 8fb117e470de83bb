/**
 * The tasks_ready envelope (api-spec.md "Product endpoints"): one task whose result lists the
 * finished, uncollected tasks with the task_get path of each.
 */
import { STATUS } from '../../../core/domain/status-codes.js';
import { newTaskId } from '../../../core/ids.js';
import type { ReadyTask } from '../../../core/task-reads.js';
import { envelope, taskObject, type Envelope } from './envelope.js';
import { PRODUCT_API_PREFIX, SEARCH_API_PREFIX } from '../../../core/domain/outcomes.js';
import type { TaskKind } from '../../../core/task-reads.js';

/**
 * Renders tasks_ready's answer.
 * @param startedAt performance.now() at the start of the request (the `time` fields).
 */
export function tasksReadyEnvelope(rows: ReadyTask[], startedAt: number, kind: TaskKind = 'product'): Envelope {
  const prefix = kind === 'search' ? SEARCH_API_PREFIX : PRODUCT_API_PREFIX;
  const result = rows.map((r) => ({
    id: r.id,
    ...(kind === 'search' ? { keyword: r.keyword } : { asin: r.asin }),
    marketplace: r.marketplace,
    tag: r.tag,
    status_code: r.statusCode,
    date_posted: r.datePosted,
    date_completed: r.dateCompleted,
    endpoint: `/${prefix.join('/')}/task_get/${r.id}`,
  }));
  const data = { api: 'retail', function: 'tasks_ready' };
  return envelope(startedAt, [taskObject({ id: newTaskId(), code: STATUS.OK, startedAt, path: [...prefix, 'tasks_ready'], data, result })]);
}
