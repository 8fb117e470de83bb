/**
 * Task creation and completion, shared by the API (reuse window, live budget) and the worker's
 * activities. Every transition out of `queued`/`running` is a conditional update, so a task finishes
 * exactly once and a failure is refunded exactly once (api-spec.md "Task lifecycle", charging
 * rules). Each operation is one statement (data-modifying CTEs) through the hot-path SQL runner
 * (core/db/sql.ts), so it is atomic without a transaction.
 */
import type { Db } from './db/db.js';
import type { Sql, Statement } from './db/sql.js';
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
export interface NewTask extends ChargedTaskInput {
  accountId: number;
  endpoint: 'task_post' | 'live';
  expiresAt: Date;
  /** The ledger entry's note (the endpoint). */
  note: string;
  /**
   * Finish the task at once from the newest observation of the product observed at or after
   * `since`: completed (20000), or failed with 40402 and refunded when it says `not_found`;
   * `markReused` sets `reused` whenever such an observation exists (task_post's reuse window),
   * `collect` sets `collected_at` on a task so finished (live answers it at once).
   */
  reuse?: { since: Date; markReused: boolean; collect: boolean };
}

/** One task of `createChargedTasks`; `cost` USD. */
export interface ChargedTaskInput {
  id: string;
  asin: string;
  marketplace: string;
  /** The task as received plus `api` and `function`. */
  data: Record<string, unknown>;
  cost: number;
  priority?: number;
  tag?: string | null;
  postbackUrl?: string | null;
  pingbackUrl?: string | null;
}

/** The tasks of one request (or one bulk chunk), charged in the order given by `createChargedTasks`. */
export interface NewTasks extends Pick<NewTask, 'accountId' | 'endpoint' | 'expiresAt' | 'note' | 'reuse'> {
  tasks: readonly (ChargedTaskInput & { /** The upload's row number (with `batchId`). */ row?: number })[];
  /** Select each completed task's observation as its `product` (live); otherwise `product` is null. */
  withProduct?: boolean;
  /** Record every task, paid or refused with 40200, as a row of this bulk batch (core/batches.ts). */
  batchId?: string;
}

/**
 * A charged task as stored: `queued` (its workflow is to be started), `completed` (20000, from
 * the reuse window) or `failed` (40402 from a fresh `not_found` observation, refunded: cost 0).
 */
export type CreatedTask = TaskOutcome;

// The tasks arrive as one jsonb array, in charging order. The account row is locked first (FOR
// UPDATE: under READ COMMITTED a concurrent charge of the same account is waited for and its
// result re-read), so the balance `walk` starts from is the one the UPDATE changes, and
// concurrent charges queue behind this one. `walk` visits the tasks in order with the balance
// left (`before`): a task is paid when that balance covers its cost (api-spec.md: 40200 for the
// others). A task whose fresh observation says `not_found` is charged and refunded at once (40402,
// as `failTask` would), so its cost stays available to the tasks after it. Each step reads its
// cost from an array by position, so the walk is linear in the number of tasks. The ledger gets
// each task's charge (and refund) in task order, with the running balance as `balance_after`.
// asin is bpchar, the column's type, so the reuse lookup uses the observations index.
const CHARGE_TASKS: Statement = {
  name: 'tasks:charge',
  text: `WITH RECURSIVE input AS (
      SELECT (e->>'id')::uuid AS id, (e->>'asin')::bpchar AS asin, e->>'marketplace' AS marketplace, e->'data' AS data,
        (e->>'cost')::numeric AS cost, (e->>'priority')::smallint AS priority, e->>'tag' AS tag,
        e->>'postback_url' AS postback_url, e->>'pingback_url' AS pingback_url, (e->>'row')::int AS row_no, n
      FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS x(e, n)
    ), fresh AS (
      SELECT i.n, f.id AS obs_id, f.status FROM input i
      CROSS JOIN LATERAL (
        SELECT o.id, o.status FROM observations o
        WHERE $6::timestamptz IS NOT NULL AND o.asin = i.asin AND o.marketplace = i.marketplace AND o.observed_at >= $6::timestamptz
        ORDER BY o.observed_at DESC LIMIT 1
      ) f
    ), steps AS (
      SELECT array_agg(i.cost ORDER BY i.n) AS cost, array_agg(coalesce(f.status = 'not_found', false) ORDER BY i.n) AS refunded
      FROM input i LEFT JOIN fresh f ON f.n = i.n
    ), acct AS (
      SELECT id, balance FROM accounts WHERE id = $1::int FOR UPDATE
    ), walk (n, before, after, paid, refunded) AS (
      SELECT 0::bigint, balance::numeric, balance::numeric, false, false FROM acct
      UNION ALL
      SELECT w.n + 1, w.after, (CASE WHEN w.after >= s.cost AND NOT s.refunded THEN w.after - s.cost ELSE w.after END)::numeric,
        w.after >= s.cost, s.refunded
      FROM walk w CROSS JOIN LATERAL (SELECT cost[w.n + 1] AS cost, refunded[w.n + 1] AS refunded FROM steps) s
      WHERE s.cost IS NOT NULL
    ), paid AS (
      SELECT i.*, w.before, w.refunded FROM input i JOIN walk w ON w.n = i.n AND w.paid
    ), charged AS (
      UPDATE accounts SET balance = accounts.balance - coalesce((SELECT sum(cost) FROM paid WHERE NOT refunded), 0)
      WHERE accounts.id = $1::int AND EXISTS (SELECT 1 FROM paid)
      RETURNING accounts.id
    ), entries AS (
      INSERT INTO ledger_entries (account_id, kind, amount, balance_after, task_id, note)
      SELECT c.id, e.kind, e.amount, e.balance_after, e.task_id, e.note FROM (
        SELECT p.n, 0 AS k, 'charge' AS kind, -p.cost AS amount, p.before - p.cost AS balance_after, p.id AS task_id, $5 AS note FROM paid p
        UNION ALL
        SELECT p.n, 1, 'refund', p.cost, p.before, p.id, $15 FROM paid p WHERE p.refunded AND p.cost > 0
      ) e CROSS JOIN charged c
      ORDER BY e.n, e.k
    ), task AS (
      INSERT INTO tasks (id, account_id, endpoint, asin, marketplace, data, cost, expires_at, priority, tag, postback_url, pingback_url,
        state, status_code, status_message, observation_id, completed_at, reused, collected_at)
      SELECT p.id, c.id, $3, p.asin, p.marketplace, p.data, CASE WHEN p.refunded THEN 0 ELSE p.cost END, $4::timestamptz, coalesce(p.priority, 1),
        p.tag, p.postback_url, p.pingback_url,
        CASE WHEN p.refunded THEN 'failed' WHEN f.obs_id IS NOT NULL THEN 'completed' ELSE 'queued' END,
        CASE WHEN p.refunded THEN ${STATUS.PRODUCT_NOT_FOUND} WHEN f.obs_id IS NOT NULL THEN ${STATUS.OK} ELSE ${STATUS.TASK_CREATED} END,
        CASE WHEN p.refunded THEN $14 WHEN f.obs_id IS NOT NULL THEN $12 ELSE $11 END,
        f.obs_id,
        CASE WHEN f.obs_id IS NOT NULL THEN now() END,
        f.obs_id IS NOT NULL AND $7::boolean,
        CASE WHEN f.obs_id IS NOT NULL AND $8::boolean THEN now() END
      FROM paid p CROSS JOIN charged c LEFT JOIN fresh f ON f.n = p.n
      RETURNING id, state, status_code, status_message, cost, observation_id
    ), recorded AS (
      INSERT INTO batch_rows (batch_id, row, task_id, asin, marketplace, status_code, status_message)
      SELECT $10::uuid, i.row_no, t.id, i.asin, i.marketplace,
        CASE WHEN t.id IS NULL THEN ${STATUS.PAYMENT_REQUIRED} ELSE ${STATUS.TASK_CREATED} END,
        CASE WHEN t.id IS NULL THEN $13 ELSE $11 END
      FROM input i LEFT JOIN task t ON t.id = i.id
      WHERE $10::uuid IS NOT NULL
    )
    SELECT t.state, t.status_code, t.status_message, t.cost::text AS cost, ${OBSERVATION_JSON}
    FROM input i LEFT JOIN task t ON t.id = i.id
    LEFT JOIN observations o ON $9::boolean AND o.id = t.observation_id ${OBSERVATION_JOINS}
    ORDER BY i.n`,
};

/**
 * Charges the tasks in the order given and stores each paid one, with its ledger entry, in one
 * statement (atomic: when it throws, nothing was charged). A task is paid when the balance left
 * after the tasks paid before it covers its cost; the others are neither charged nor stored
 * (40200). With `reuse`, the same statement finishes a paid task from the newest observation of
 * its product observed since `reuse.since` (api-spec.md "Task lifecycle": reuse window, live
 * `max_age_minutes`): completed with 20000, or, when the observation says `not_found`, failed with
 * 40402 and refunded at once (charge and refund entries; its cost stays available to the tasks
 * after it). Concurrent calls for one account are serialised on the account row, so they never
 * overdraw it.
 * @returns one entry per task, in order: null when it was not paid
 * @throws the driver's error (nothing charged)
 */
export async function createChargedTasks(sql: Sql, batch: NewTasks): Promise<(CreatedTask | null)[]> {
  if (batch.tasks.length === 0) return [];
  const elements = batch.tasks.map((t) => ({
    id: t.id, asin: t.asin, marketplace: t.marketplace, data: t.data, cost: usd(t.cost), priority: t.priority ?? 1,
    tag: t.tag ?? null, postback_url: t.postbackUrl ?? null, pingback_url: t.pingbackUrl ?? null, row: t.row ?? null,
  }));
  const { rows } = await sql.query<Omit<OutcomeRow, 'state'> & { state: string | null }>(CHARGE_TASKS, [
    batch.accountId, JSON.stringify(elements), batch.endpoint, batch.expiresAt, batch.note,
    batch.reuse?.since ?? null, batch.reuse?.markReused ?? false, batch.reuse?.collect ?? false, batch.withProduct ?? false, batch.batchId ?? null,
    statusMessage(STATUS.TASK_CREATED), statusMessage(STATUS.OK), statusMessage(STATUS.PAYMENT_REQUIRED), statusMessage(STATUS.PRODUCT_NOT_FOUND),
    `task ${STATUS.PRODUCT_NOT_FOUND}`,
  ]);
  return rows.map((row) => (row.state === null ? null : outcomeFromSql(row as OutcomeRow)));
}

/**
 * Charges one task and stores it (`createChargedTasks` with one task, its observation's Product
 * selected: live answers a cache hit from it).
 * @returns null when the balance does not cover the cost (nothing is written: 40200).
 */
export async function createChargedTask(db: Db, task: NewTask): Promise<CreatedTask | null> {
  const { accountId, endpoint, expiresAt, note, reuse, ...one } = task;
  const [created] = await createChargedTasks(db.sql, { accountId, endpoint, expiresAt, note, reuse, withProduct: true, tasks: [one] });
  return created ?? null;
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
