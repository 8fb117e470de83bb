/**
 * The reads of task_get and tasks_ready (api-spec.md "Product endpoints", "Task lifecycle"), one
 * prepared statement each through the hot-path SQL runner (core/db/sql.ts); the joined observation
 * is decoded by core/observation-codec.ts. The task_get answer is a `TaskGetView`, which the REST
 * presenter renders (api/rest/envelope/task-get.ts) for task_get and postbacks alike.
 */
import type { Prisma } from '../prisma/generated/client/client.js';
import type { Sql, Statement } from './db/sql.js';
import { asStatusCode, type StatusCode } from './domain/status-codes.js';
import { OBSERVATION_JOINS, OBSERVATION_JSON, productFromJson, productFromRow, type ObservationJson, type ObservationRow } from './observation-codec.js';
import type { Product } from './product.js';
import type { SearchResults } from './search.js';

/**
 * A task_post task as task_get (and its postback) answers it: `completedAt` null while it runs;
 * `product` set when it finished with OK and has its observation.
 */
export interface TaskGetView {
  id: string;
  /** `product` (result: `product`) or `search` (result: `searchResultIds`, read by the caller). Absent → product. */
  kind?: TaskKind;
  /** The task as received, plus `api` and `function`. */
  data: Prisma.JsonValue;
  completedAt: Date | null;
  statusCode: StatusCode;
  statusMessage: string;
  product: Product | null;
  /** A search task: the ids of its SearchResults observations, page order (empty until it completes). */
  searchResultIds?: bigint[];
  /** A search task finished with OK: its SearchResults, page order, once loaded (core/services/task-results.ts `withSearchResults`). */
  searchResults?: SearchResults[];
}

/** What a task reads: a product page, or results pages of a keyword (search-page-contract.md "API"). */
export type TaskKind = 'product' | 'search';

/** The view of a task row loaded by Prisma with `include: { observation: { include: OBSERVATION_INCLUDE } }` (the postback's read). */
export function taskGetViewOf(task: {
  id: string; kind?: string; data: Prisma.JsonValue; completedAt: Date | null; statusCode: number; statusMessage: string; observation: ObservationRow | null; searchObservationIds?: bigint[];
}): TaskGetView {
  const statusCode = asStatusCode(task.statusCode);
  const view: TaskGetView = { id: task.id, data: task.data, completedAt: task.completedAt, statusCode, statusMessage: task.statusMessage, product: task.observation ? productFromRow(task.observation) : null };
  return task.kind === 'search' ? { ...view, kind: 'search', searchResultIds: task.searchObservationIds ?? [] } : view;
}

interface TaskGetRow {
  id: string;
  kind: TaskKind;
  search_observation_ids: string[];
  data: Prisma.JsonValue;
  completed_at: Date | null;
  status_code: number;
  status_message: string;
  observation: ObservationJson | null;
}

// The task as it was before this statement (the answer), and, when it was finished and not yet
// collected, the first collection; an unfinished task is never marked collected.
const COLLECT_TASK: Statement = {
  name: 'task-get:collect',
  text: `WITH t AS (
      SELECT id, kind, data, completed_at, collected_at, status_code, status_message, observation_id, search_observation_ids
      FROM tasks WHERE id = $1::uuid AND account_id = $2::int AND kind = $3 AND expires_at > now()
    ), collected AS (
      UPDATE tasks SET collected_at = now() FROM t
      WHERE tasks.id = t.id AND t.completed_at IS NOT NULL AND t.collected_at IS NULL AND tasks.collected_at IS NULL
      RETURNING tasks.id
    )
    SELECT t.id, t.kind, t.search_observation_ids::text[] AS search_observation_ids, t.data, t.completed_at, t.status_code, t.status_message, ${OBSERVATION_JSON}
    FROM t LEFT JOIN observations o ON o.id = t.observation_id ${OBSERVATION_JOINS}`,
};

/**
 * task_get's read: the account's unexpired task `id` (a lowercase UUID) of `kind` with its
 * observation, in one statement that also marks a finished task collected the first time
 * (`collected_at` is set only while null). Null when there is no such task (HTTP 404 / 40400): a
 * search task is not found under the product endpoints, nor the reverse.
 */
export async function collectTask(sql: Sql, id: string, accountId: number, kind: TaskKind = 'product'): Promise<TaskGetView | null> {
  const { rows } = await sql.query<TaskGetRow>(COLLECT_TASK, [id, accountId, kind]);
  const row = rows[0];
  if (!row) return null;
  const view: TaskGetView = { id: row.id, data: row.data, completedAt: row.completed_at, statusCode: asStatusCode(row.status_code), statusMessage: row.status_message, product: row.observation ? productFromJson(row.observation) : null };
  return row.kind === 'search' ? { ...view, kind: 'search', searchResultIds: row.search_observation_ids.map((id) => BigInt(id)) } : view;
}

/** One finished, uncollected task_post task as tasks_ready lists it; dates ISO 8601 UTC with ms (as `toISOString`). */
export interface ReadyTask {
  id: string;
  /** Product tasks; null on search tasks. */
  asin: string | null;
  /** Search tasks; null on product tasks. */
  keyword: string | null;
  marketplace: string;
  tag: string | null;
  statusCode: number;
  datePosted: string;
  dateCompleted: string;
}

/** A timestamptz column as `Date.prototype.toISOString` prints it, formatted by the database (no Date parsing per row). */
const isoUtc = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const READY_TASKS: Statement = {
  name: 'tasks-ready:list',
  text: `SELECT id, asin, keyword, marketplace, tag, status_code AS "statusCode", ${isoUtc('created_at')} AS "datePosted", ${isoUtc('completed_at')} AS "dateCompleted"
    FROM tasks
    WHERE account_id = $1::int AND endpoint = 'task_post' AND kind = $3 AND collected_at IS NULL AND completed_at IS NOT NULL AND expires_at > now()
    ORDER BY completed_at, id
    LIMIT $2::int`,
};

/** tasks_ready's read: the account's finished, uncollected, unexpired task_post tasks of `kind`, oldest first, at most `limit`. */
export async function readyTasks(sql: Sql, accountId: number, limit: number, kind: TaskKind = 'product'): Promise<ReadyTask[]> {
  return (await sql.query<ReadyTask>(READY_TASKS, [accountId, limit, kind])).rows;
}
