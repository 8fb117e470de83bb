/**
 * Task creation and completion, shared by the API (reuse window, live budget) and the worker's
 * activities. Every transition out of `queued`/`running` is a conditional update, so a task finishes
 * exactly once and a failure is refunded exactly once (api-spec.md "Task lifecycle", charging
 * rules). Each operation is one statement (data-modifying CTEs) through the hot-path SQL runner
 * (core/db/sql.ts), so it is atomic without a transaction.
 */
import type { Db } from './db/db.js';
import type { Statement } from './db/sql.js';
import { usd } from './ledger.js';
import { asStatusCode, STATUS, statusMessage, type StatusCode } from './domain/status-codes.js';
import { OBSERVATION_JOINS, OBSERVATION_JSON, productFromJson, type ObservationJson } from './observation-codec.js';
import type { Product } from './product.js';

/** A task row as the live answer needs it, with the Product of its observation (null when none). */
export interface TaskOutcome {
  state: string;
  statusCode: StatusCode;
  statusMessage: string;
  /** USD charged (0 after a refund). */
  cost: number;
  product: Product | null;
}

interface OutcomeRow {
  state: string;
  status_code: number;
  status_message: string;
  cost: string;
  observation: ObservationJson | null;
}

function outcomeFromSql(row: OutcomeRow): TaskOutcome {
  return { state: row.state, statusCode: asStatusCode(row.status_code), statusMessage: row.status_message, cost: Number(row.cost), product: row.observation ? productFromJson(row.observation) : null };
}

/** What `createChargedTask` stores; `cost` USD, `expiresAt` the end of result retention. */
export interface NewTask {
  id: string;
  accountId: number;
  endpoint: 'task_post' | 'live';
  asin: string;
  marketplace: string;
  /** The task as received plus `api` and `function`. */
  data: Record<string, unknown>;
  cost: number;
  expiresAt: Date;
  priority?: number;
  tag?: string | null;
  postbackUrl?: string | null;
  pingbackUrl?: string | null;
  /** The ledger entry's note (the endpoint). */
  note: string;
  /**
   * Complete the task at once from the newest observation of the product observed at or after
   * `since`, when there is one and it is not `not_found`; `markReused` sets `reused` whenever such
   * an observation exists, `not_found` included (task_post's reuse window: the caller fails that
   * task with 40402 from it), `collect` sets `collected_at` (live answers it at once).
   */
  reuse?: { since: Date; markReused: boolean; collect: boolean };
}

/** The result of `createChargedTask` (null when the balance did not cover the cost). */
export interface CreatedTask extends TaskOutcome {
  /** The newest observation within the reuse window, whatever its status; null when none or no reuse. */
  fresh: { id: bigint; status: string } | null;
}

const CREATE_CHARGED_TASK: Statement = {
  name: 'tasks:create-charged',
  text: `WITH fresh AS (
      SELECT id, status FROM observations
      WHERE $15::timestamptz IS NOT NULL AND asin = $4 AND marketplace = $5 AND observed_at >= $15::timestamptz
      ORDER BY observed_at DESC LIMIT 1
    ), usable AS (
      SELECT id FROM fresh WHERE status <> 'not_found'
    ), charged AS (
      UPDATE accounts SET balance = balance - $7::numeric
      WHERE id = $2::int AND balance >= $7::numeric
      RETURNING id, balance
    ), entry AS (
      INSERT INTO ledger_entries (account_id, kind, amount, balance_after, task_id, note)
      SELECT id, 'charge', -($7::numeric), balance, $1::uuid, $14 FROM charged
    ), task AS (
      INSERT INTO tasks (id, account_id, endpoint, asin, marketplace, data, cost, expires_at, priority, tag, postback_url, pingback_url,
        state, status_code, status_message, observation_id, completed_at, reused, collected_at)
      SELECT $1::uuid, c.id, $3, $4, $5, $6::jsonb, $7::numeric, $8::timestamptz, $9::smallint, $10, $11, $12,
        CASE WHEN u.id IS NULL THEN 'queued' ELSE 'completed' END,
        CASE WHEN u.id IS NULL THEN ${STATUS.TASK_CREATED} ELSE ${STATUS.OK} END,
        CASE WHEN u.id IS NULL THEN $13 ELSE $16 END,
        u.id,
        CASE WHEN u.id IS NULL THEN NULL ELSE now() END,
        f.id IS NOT NULL AND $17::boolean,
        CASE WHEN u.id IS NOT NULL AND $18::boolean THEN now() END
      FROM charged c LEFT JOIN usable u ON true LEFT JOIN fresh f ON true
      RETURNING state, status_code, status_message, cost, observation_id
    )
    SELECT t.state, t.status_code, t.status_message, t.cost::text AS cost, f.id::text AS fresh_id, f.status AS fresh_status, ${OBSERVATION_JSON}
    FROM task t LEFT JOIN fresh f ON true LEFT JOIN observations o ON o.id = t.observation_id ${OBSERVATION_JOINS}`,
};

/**
 * Charges the task's cost and stores the task, with its ledger entry, in one statement; with
 * `reuse`, the same statement completes it (20000) from a fresh observation (api-spec.md "Task
 * lifecycle": reuse window, live `max_age_minutes`). A fresh `not_found` observation leaves the
 * task queued and is returned in `fresh`: the caller fails it with 40402, which refunds it.
 * @returns null when the balance does not cover the cost (nothing is written: 40200).
 */
export async function createChargedTask(db: Db, task: NewTask): Promise<CreatedTask | null> {
  const { rows } = await db.sql.query<OutcomeRow & { fresh_id: string | null; fresh_status: string | null }>(CREATE_CHARGED_TASK, [
    task.id, task.accountId, task.endpoint, task.asin, task.marketplace, JSON.stringify(task.data), usd(task.cost), task.expiresAt,
    task.priority ?? 1, task.tag ?? null, task.postbackUrl ?? null, task.pingbackUrl ?? null, statusMessage(STATUS.TASK_CREATED), task.note,
    task.reuse?.since ?? null, statusMessage(STATUS.OK), task.reuse?.markReused ?? false, task.reuse?.collect ?? false,
  ]);
  const row = rows[0];
  if (!row) return null;
  return { ...outcomeFromSql(row), fresh: row.fresh_id === null ? null : { id: BigInt(row.fresh_id), status: row.fresh_status! } };
}

const COLLECT_OUTCOME: Statement = {
  name: 'tasks:collect-outcome',
  text: `WITH t AS (
      UPDATE tasks SET collected_at = now() WHERE id = $1::uuid
      RETURNING state, status_code, status_message, cost, observation_id
    )
    SELECT t.state, t.status_code, t.status_message, t.cost::text AS cost, ${OBSERVATION_JSON}
    FROM t LEFT JOIN observations o ON o.id = t.observation_id ${OBSERVATION_JOINS}`,
};

/**
 * Marks the task collected and returns its state with its observation (live's answer), in one
 * statement.
 * @throws Error when the task does not exist
 */
export async function collectTaskOutcome(db: Db, taskId: string): Promise<TaskOutcome> {
  const row = (await db.sql.query<OutcomeRow>(COLLECT_OUTCOME, [taskId])).rows[0];
  if (!row) throw new Error(`task ${taskId} not found`);
  return outcomeFromSql(row);
}

const COMPLETE_FROM_OBSERVATION: Statement = {
  name: 'tasks:complete-from-observation',
  text: `WITH o AS (
      SELECT status FROM observations WHERE id = $2::bigint
    ), done AS (
      UPDATE tasks SET state = 'completed', status_code = ${STATUS.OK}, status_message = $3, observation_id = $2::bigint, completed_at = now()
      WHERE id = $1::uuid AND state IN ('queued', 'running') AND EXISTS (SELECT 1 FROM o WHERE status <> 'not_found')
      RETURNING id
    )
    SELECT (SELECT status FROM o) AS status, (SELECT count(*)::int FROM done) AS updated,
      (SELECT status_code FROM tasks WHERE id = $1::uuid) AS previous_code`,
};

/** What completing a task from an observation did. */
export interface TaskCompletion {
  /** false when the task had already finished (nothing changed). */
  changed: boolean;
  /** The task's status code afterwards: 20000, 40402, or the code it had already finished with. */
  statusCode: StatusCode;
}

/**
 * Completes a task from an observation: 20000, or 40402 (refunded) when the observation says the
 * product does not exist. One statement (two for 40402).
 * @throws Error when the observation or the task does not exist
 */
export async function finishTaskFromObservation(db: Db, taskId: string, observationId: bigint): Promise<TaskCompletion> {
  const { rows } = await db.sql.query<{ status: string | null; updated: number; previous_code: number | null }>(
    COMPLETE_FROM_OBSERVATION, [taskId, observationId.toString(), statusMessage(STATUS.OK)],
  );
  const row = rows[0]!;
  if (row.status === null) throw new Error(`observation ${observationId} not found`);
  if (row.updated === 1) return { changed: true, statusCode: STATUS.OK };
  if (row.status === 'not_found' && (await failTask(db, taskId, STATUS.PRODUCT_NOT_FOUND, observationId))) return { changed: true, statusCode: STATUS.PRODUCT_NOT_FOUND };
  if (row.previous_code === null) throw new Error(`task ${taskId} not found`);
  // Already finished (a retried read, or the live budget ran out first): its code stands.
  return { changed: false, statusCode: asStatusCode((await db.sql.query<{ status_code: number }>(TASK_STATUS_CODE, [taskId])).rows[0]!.status_code) };
}

const TASK_STATUS_CODE: Statement = {
  name: 'tasks:status-code',
  text: `SELECT status_code FROM tasks WHERE id = $1::uuid`,
};

/**
 * Completes a task from an observation (see finishTaskFromObservation).
 * @returns false when the task had already finished (nothing changed).
 */
export async function completeTaskFromObservation(db: Db, taskId: string, observationId: bigint): Promise<boolean> {
  return (await finishTaskFromObservation(db, taskId, observationId)).changed;
}

// The task's cost before the failure (locked, so a concurrent failure waits and then finds the
// task finished), the failure, the refund of that cost and its ledger entry.
const FAIL_TASK: Statement = {
  name: 'tasks:fail',
  text: `WITH old AS (
      SELECT id, account_id, cost FROM tasks WHERE id = $1::uuid AND state IN ('queued', 'running') FOR UPDATE
    ), failed AS (
      UPDATE tasks SET state = 'failed', status_code = $2::int, status_message = $3, cost = 0, observation_id = $4::bigint, completed_at = now()
      FROM old WHERE tasks.id = old.id
      RETURNING old.account_id, old.cost
    ), refunded AS (
      UPDATE accounts SET balance = accounts.balance + failed.cost FROM failed
      WHERE accounts.id = failed.account_id AND failed.cost > 0
      RETURNING accounts.id, accounts.balance, failed.cost
    ), entry AS (
      INSERT INTO ledger_entries (account_id, kind, amount, balance_after, task_id, note)
      SELECT id, 'refund', cost, balance, $1::uuid, $5 FROM refunded
    )
    SELECT count(*)::int AS failed FROM failed`,
};

/**
 * Fails a task with a not-charged code (40402, 50301) and refunds its cost (ledger entry `refund`,
 * note `task <code>`), in one statement.
 * @returns false when the task had already finished (no second refund).
 */
export async function failTask(db: Db, taskId: string, code: typeof STATUS.PRODUCT_NOT_FOUND | typeof STATUS.SOURCE_UNAVAILABLE, observationId?: bigint): Promise<boolean> {
  const { rows } = await db.sql.query<{ failed: number }>(FAIL_TASK, [taskId, code, statusMessage(code), observationId?.toString() ?? null, `task ${code}`]);
  return rows[0]?.failed === 1;
}

const MARK_RUNNING: Statement = {
  name: 'tasks:mark-running',
  text: `UPDATE tasks SET state = 'running' WHERE id = $1::uuid AND state = 'queued'`,
};

/** Marks a queued task as running (informational; the worker calls it when a read starts). */
export async function markTaskRunning(db: Db, taskId: string): Promise<void> {
  await db.sql.query(MARK_RUNNING, [taskId]);
}
