/**
 * Batches of bulk task_post (`text/csv`, `application/x-ndjson`): the `batches` row of an upload
 * and one `batch_rows` row per data row, holding the task it created or the code that refused it.
 * The tasks of a chunk of rows are charged, stored, recorded and (within the reuse window) finished
 * by task_post's statement (core/tasks.ts `createChargedTasks`), row after row in upload order: a
 * row is charged when the balance left covers its price, and each charge has its ledger entry.
 * Every operation is one statement through the hot-path SQL runner.
 */
import type { Sql, Statement } from './db/sql.js';
import { usd } from './ledger.js';
import { OBSERVATION_JOINS, OBSERVATION_JSON, type ObservationJson } from './observation-codec.js';
import { createChargedTasks, type CreatedTask } from './tasks.js';

/** One valid row of a chunk, ready to be charged (data: the row as received plus `api` and `function`). */
export interface BatchTaskRow {
  id: string;
  row: number;
  asin: string;
  marketplace: string;
  data: Record<string, unknown>;
  /** USD. */
  cost: number;
  priority: number;
  tag: string | null;
  postbackUrl: string | null;
  pingbackUrl: string | null;
}

/** A refused row of an upload (not charged). */
export interface BatchRejection {
  row: number;
  statusCode: number;
  statusMessage: string;
  asin?: string | null;
  marketplace?: string | null;
}

const CREATE_BATCH: Statement = {
  name: 'batches:create',
  text: `INSERT INTO batches (id, account_id, format) VALUES ($1::uuid, $2::int, $3)`,
};

/** Stores a new batch (state `processing`). */
export async function createBatch(sql: Sql, batch: { id: string; accountId: number; format: string }): Promise<void> {
  await sql.query(CREATE_BATCH, [batch.id, batch.accountId, batch.format]);
}

const FINISH_BATCH: Statement = {
  name: 'batches:finish',
  text: `UPDATE batches SET state = 'done', rows = $2::int, accepted = $3::int, rejected = $4::int, cost = $5::numeric, completed_at = now() WHERE id = $1::uuid`,
};

/** Records the batch's totals once the upload is answered; `cost` USD. */
export async function finishBatch(sql: Sql, totals: { id: string; rows: number; accepted: number; rejected: number; cost: number }): Promise<void> {
  await sql.query(FINISH_BATCH, [totals.id, totals.rows, totals.accepted, totals.rejected, usd(totals.cost)]);
}

const RECORD_REJECTIONS: Statement = {
  name: 'batches:reject',
  text: `INSERT INTO batch_rows (batch_id, row, asin, marketplace, status_code, status_message)
    SELECT $1::uuid, r.row, r.asin, r.marketplace, r.code, r.message
    FROM unnest($2::int[], $3::text[], $4::text[], $5::int[], $6::text[]) AS r(row, asin, marketplace, code, message)`,
};

/** Stores refused rows (one statement for all of them). */
export async function recordRejections(sql: Sql, batchId: string, rows: readonly BatchRejection[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(RECORD_REJECTIONS, [
    batchId, rows.map((r) => r.row), rows.map((r) => r.asin ?? null), rows.map((r) => r.marketplace ?? null),
    rows.map((r) => r.statusCode), rows.map((r) => r.statusMessage.slice(0, 255)),
  ]);
}

/**
 * Charges, stores and records a chunk of valid rows of batch `batchId` in one statement
 * (core/tasks.ts `createChargedTasks`, task_post's rules in upload order); a row the balance left
 * cannot cover is recorded refused with 40200 and not charged. With `reuseSince`, a task finishes
 * at once from the newest observation observed since then (20000, or 40402 refunded).
 * @returns each row's task, in input order (null when not paid)
 */
export async function chargeBatchChunk(
  sql: Sql,
  chunk: { accountId: number; batchId: string; rows: readonly BatchTaskRow[]; expiresAt: Date; reuseSince: Date | null; note: string },
): Promise<(CreatedTask | null)[]> {
  return createChargedTasks(sql, {
    accountId: chunk.accountId, endpoint: 'task_post', expiresAt: chunk.expiresAt, note: chunk.note, batchId: chunk.batchId, tasks: chunk.rows,
    reuse: chunk.reuseSince ? { since: chunk.reuseSince, markReused: true, collect: false } : undefined,
  });
}

const FIND_BATCH: Statement = {
  name: 'batches:find',
  text: `SELECT id::text, format, state FROM batches WHERE id = $1::uuid AND account_id = $2::int`,
};

/** The account's batch `id` (lower-case UUID), or null (unknown, another account's, purged). */
export async function findBatch(sql: Sql, id: string, accountId: number): Promise<{ id: string; format: string; state: string } | null> {
  return (await sql.query<{ id: string; format: string; state: string }>(FIND_BATCH, [id, accountId])).rows[0] ?? null;
}

/** One row of a batch's results, with its task's code and observation (as `to_jsonb`) once finished. */
export interface BatchResultRow {
  row: number;
  task_id: string | null;
  asin: string | null;
  marketplace: string | null;
  /** The task's state, or null for a refused row. */
  state: string | null;
  status_code: number;
  status_message: string;
  cost: string | null;
  observation: ObservationJson | null;
}

// The page, and the finished tasks in it marked collected (as task_get does), in one statement.
const RESULTS_PAGE: Statement = {
  name: 'batches:results-page',
  text: `WITH page AS (
      SELECT r.row, r.task_id, r.asin, r.marketplace, t.state,
        coalesce(t.status_code, r.status_code) AS status_code, coalesce(t.status_message, r.status_message) AS status_message,
        t.cost::text AS cost, t.observation_id, t.collected_at
      FROM batch_rows r LEFT JOIN tasks t ON t.id = r.task_id
      WHERE r.batch_id = $1::uuid AND r.row > $2::int
      ORDER BY r.row LIMIT $3::int
    ), collected AS (
      UPDATE tasks SET collected_at = now() FROM page
      WHERE tasks.id = page.task_id AND page.state IN ('completed', 'failed') AND page.collected_at IS NULL
    )
    SELECT p.row, p.task_id::text, p.asin, p.marketplace, p.state, p.status_code, p.status_message, p.cost,
      ${OBSERVATION_JSON}
    FROM page p LEFT JOIN observations o ON o.id = p.observation_id ${OBSERVATION_JOINS}
    ORDER BY p.row`,
};

/**
 * The rows of a batch after `afterRow`, at most `limit`, in row order; finished tasks among them
 * are marked collected (they leave tasks_ready, as after task_get).
 */
export async function readBatchResults(sql: Sql, page: { batchId: string; afterRow: number; limit: number }): Promise<BatchResultRow[]> {
  return (await sql.query<BatchResultRow>(RESULTS_PAGE, [page.batchId, page.afterRow, page.limit])).rows;
}
