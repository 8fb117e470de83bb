/**
 * The tasks_ready envelope (api-spec.md "Product endpoints"): one task whose result lists the
 * finished, uncollected tasks with the task_get path of each.
 */
import { STATUS } from '../../../core/domain/status-codes.js';
import { newTaskId } from '../../../core/ids.js';
import type { ReadyTask } from '../../../core/task-reads.js';
import { envelope, taskObject, type Envelope } from './envelope.js';
import { PRODUCT_API_PREFIX } from '../../../core/domain/outcomes.js';

/**
 * Renders tasks_ready's answer.
 * @param startedAt performance.now() at the start of the request (the `time` fields).
 */
export function tasksReadyEnvelope(rows: ReadyTask[], startedAt: number): Envelope {
  const result = rows.map((r) => ({
    id: r.id,
    asin: r.asin,
    marketplace: r.marketplace,
    tag: r.tag,
    status_code: r.statusCode,
    date_posted: r.datePosted,
    date_completed: r.dateCompleted,
    endpoint: `/v1/retail/product/task_get/${r.id}`,
  }));
  const data = { api: 'retail', function: 'tasks_ready' };
  return envelope(startedAt, [taskObject({ id: newTaskId(), code: STATUS.OK, startedAt, path: [...PRODUCT_API_PREFIX, 'tasks_ready'], data, result })]);
}
