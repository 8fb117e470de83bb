/**
 * Batches of bulk task_post (`text/csv`, `application/x-ndjson`): the `batches` row of an upload
 * and one `batch_rows` row per data row, holding the task it created or the code that refused it.
 * The tasks of a chunk of rows are charged, stored and (within the reuse window) completed by one
 * statement, with the rules of one task_post task (core/tasks.ts `createChargedTask`) applied row
 * after row in upload order: a row is charged when the balance left covers its price, and each
 * charge has its ledger entry. Every operation is one statement through the hot-path SQL runner.
 */
import type { Sql, Statement } from './db/sql.js';
import { usd } from './ledger.js';
import { STATUS, statusMessage } from './domain/status-codes.js';
import { OBSERVATION_JOINS, OBSERVATION_JSON, type ObservationJson } from './observation-codec.js';

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

/** What became of a chunk row: not paid (40200), or its task's state and the fresh observation it met. */
export interface BatchTaskOutcome {
  id: string;
  paid: boolean;
  /** `queued` (start its workflow) or `completed` (from the reuse window); null when not paid. */
  state: 'queued' | 'completed' | null;
  /** The newest observation within the reuse window, whatever its status (a `not_found` one leaves the task queued: fail it with 40402). */
  fresh: { id: bigint; status: string } | null;
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

// Rows' asin as bpchar, the column's type, so the reuse lookup uses the observations index.
// `walk` visits the rows in upload order with the balance left: a row is paid when it covers the
// row's price (the task_post rule, element after element); each step reads its price from the
// array by position, so the walk is linear in the chunk. The account row is locked first, so
// concurrent charges queue behind the chunk and the balance it walked is the one it updates.
const CHARGE_CHUNK: Statement = {
  name: 'batches:charge-chunk',
  text: `WITH RECURSIVE input AS (
      SELECT * FROM unnest($3::uuid[], $4::int[], $5::bpchar[], $6::text[], $7::jsonb[], $8::numeric[], $9::int[], $10::text[], $11::text[], $12::text[])
        WITH ORDINALITY AS t(id, row_no, asin, marketplace, data, cost, priority, tag, postback_url, pingback_url, n)
    ), acct AS (
      SELECT id, balance FROM accounts WHERE id = $1::int FOR UPDATE
    ), walk (n, remaining, paid) AS (
      SELECT 0::bigint, balance::numeric, false FROM acct
      UNION ALL
      SELECT w.n + 1, (CASE WHEN w.remaining >= c.cost THEN w.remaining - c.cost ELSE w.remaining END)::numeric, w.remaining >= c.cost
      FROM walk w CROSS JOIN LATERAL (SELECT ($8::numeric[])[w.n + 1] AS cost) c
      WHERE w.n < cardinality($8::numeric[])
    ), paid AS (
      SELECT i.*, w.remaining AS balance_after FROM input i JOIN walk w ON w.n = i.n AND w.paid
    ), charged AS (
      UPDATE accounts SET balance = accounts.balance - (SELECT sum(cost) FROM paid)
      WHERE accounts.id = $1::int AND EXISTS (SELECT 1 FROM paid)
      RETURNING accounts.id
    ), entries AS (
      INSERT INTO ledger_entries (account_id, kind, amount, balance_after, task_id, note)
      SELECT c.id, 'charge', -p.cost, p.balance_after, p.id, $15 FROM paid p CROSS JOIN charged c
    ), fresh AS (
      SELECT p.id AS task_id, f.id AS obs_id, f.status FROM paid p
      CROSS JOIN LATERAL (
        SELECT o.id, o.status FROM observations o
        WHERE $14::timestamptz IS NOT NULL AND o.asin = p.asin AND o.marketplace = p.marketplace AND o.observed_at >= $14::timestamptz
        ORDER BY o.observed_at DESC LIMIT 1
      ) f
    ), task AS (
      INSERT INTO tasks (id, account_id, endpoint, asin, marketplace, data, cost, expires_at, priority, tag, postback_url, pingback_url,
        state, status_code, status_message, observation_id, completed_at, reused)
      SELECT p.id, c.id, 'task_post', p.asin, p.marketplace, p.data, p.cost, $13::timestamptz, p.priority::smallint, p.tag, p.postback_url, p.pingback_url,
        CASE WHEN usable THEN 'completed' ELSE 'queued' END,
        CASE WHEN usable THEN ${STATUS.OK} ELSE ${STATUS.TASK_CREATED} END,
        CASE WHEN usable THEN $17 ELSE $16 END,
        CASE WHEN usable THEN f.obs_id END,
        CASE WHEN usable THEN now() END,
        f.obs_id IS NOT NULL
      FROM paid p CROSS JOIN charged c LEFT JOIN fresh f ON f.task_id = p.id
      CROSS JOIN LATERAL (SELECT f.obs_id IS NOT NULL AND f.status <> 'not_found' AS usable) u
      RETURNING id, state
    ), recorded AS (
      INSERT INTO batch_rows (batch_id, row, task_id, asin, marketplace, status_code, status_message)
      SELECT $2::uuid, i.row_no, t.id, i.asin, i.marketplace,
        CASE WHEN t.id IS NULL THEN ${STATUS.PAYMENT_REQUIRED} ELSE ${STATUS.TASK_CREATED} END,
        CASE WHEN t.id IS NULL THEN $18 ELSE $16 END
      FROM input i LEFT JOIN task t ON t.id = i.id
    )
    SELECT i.id::text AS id, t.state, f.obs_id::text AS fresh_id, f.status AS fresh_status
    FROM input i LEFT JOIN task t ON t.id = i.id LEFT JOIN fresh f ON f.task_id = i.id
    ORDER BY i.n`,
};

/**
 * Charges, stores and records a chunk of valid rows of batch `batchId` in one statement (see
 * CHARGE_CHUNK); a row the balance left cannot cover is recorded refused with 40200 and not
 * charged. With `reuseSince`, a task completes at once from the newest observation observed since
 * then unless it is `not_found` (task_post's reuse window).
 * @returns each row's outcome, in input order
 */
export async function chargeBatchChunk(
  sql: Sql,
  chunk: { accountId: number; batchId: string; rows: readonly BatchTaskRow[]; expiresAt: Date; reuseSince: Date | null; note: string },
): Promise<BatchTaskOutcome[]> {
  if (chunk.rows.length === 0) return [];
  const r = chunk.rows;
  const { rows } = await sql.query<{ id: string; state: 'queued' | 'completed' | null; fresh_id: string | null; fresh_status: string | null }>(CHARGE_CHUNK, [
    chunk.accountId, chunk.batchId, r.map((x) => x.id), r.map((x) => x.row), r.map((x) => x.asin), r.map((x) => x.marketplace),
    r.map((x) => JSON.stringify(x.data)), r.map((x) => usd(x.cost)), r.map((x) => x.priority), r.map((x) => x.tag),
    r.map((x) => x.postbackUrl), r.map((x) => x.pingbackUrl), chunk.expiresAt, chunk.reuseSince, chunk.note,
    statusMessage(STATUS.TASK_CREATED), statusMessage(STATUS.OK), statusMessage(STATUS.PAYMENT_REQUIRED),
  ]);
  return rows.map((row) => ({
    id: row.id,
    paid: row.state !== null,
    state: row.state,
    fresh: row.fresh_id === null ? null : { id: BigInt(row.fresh_id), status: row.fresh_status! },
  }));
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
