/**
 * The reads of task_get and tasks_ready (api-spec.md "Product endpoints", "Task lifecycle"), one
 * prepared statement each through the hot-path SQL runner (core/db/sql.ts), and the stored
 * observation row they join, shaped as Prisma returns it (so `toProduct` and `taskGetEnvelope`
 * serve both paths).
 */
import { Prisma } from '../prisma/generated/client/client.js';
import type { PrismaClient } from './db/prisma.js';
import type { Sql, Statement } from './db/sql.js';
import type { EnvelopeTask } from './task-envelope.js';

type ObservationRow = NonNullable<Awaited<ReturnType<PrismaClient['observation']['findUnique']>>>;

/**
 * The joined observation `o` as one JSON column `observation` (null when the LEFT JOIN found
 * none): one value for the driver to parse instead of twenty. Its id is text (exact beyond 2^53).
 */
export const OBSERVATION_JSON = `CASE WHEN o.id IS NULL THEN NULL ELSE to_jsonb(o) || jsonb_build_object('id', o.id::text) END AS observation`;

/** An observation row as `to_jsonb` renders it (numeric as numbers, timestamps as ISO text). */
export interface ObservationJson {
  id: string;
  asin: string;
  marketplace: string;
  observed_at: string;
  status: string;
  url: string;
  title: string | null;
  byline: Prisma.JsonValue;
  variant: string | null;
  variants: Prisma.JsonValue;
  price_amount: number | null;
  price_currency: string | null;
  bsr: Prisma.JsonValue | null;
  bsr_rank: number | null;
  rating: number | null;
  ratings_count: number | null;
  image_url: string | null;
  details: Prisma.JsonValue;
  parser_version: string;
  subscription_id: number | null;
}

/** The observation selected with `OBSERVATION_JSON`, as Prisma's model; null when none. */
export function observationFromJson(o: ObservationJson | null): ObservationRow | null {
  if (o === null) return null;
  return {
    id: BigInt(o.id),
    asin: o.asin,
    marketplace: o.marketplace,
    observedAt: new Date(o.observed_at),
    status: o.status,
    url: o.url,
    title: o.title,
    byline: o.byline,
    variant: o.variant,
    variants: o.variants,
    priceAmount: o.price_amount === null ? null : new Prisma.Decimal(o.price_amount),
    priceCurrency: o.price_currency,
    bsr: o.bsr,
    bsrRank: o.bsr_rank,
    rating: o.rating === null ? null : new Prisma.Decimal(o.rating),
    ratingsCount: o.ratings_count,
    imageUrl: o.image_url,
    details: o.details,
    parserVersion: o.parser_version,
    subscriptionId: o.subscription_id,
  };
}

interface TaskGetRow {
  id: string;
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
      SELECT id, data, completed_at, collected_at, status_code, status_message, observation_id
      FROM tasks WHERE id = $1::uuid AND account_id = $2::int AND expires_at > now()
    ), collected AS (
      UPDATE tasks SET collected_at = now() FROM t
      WHERE tasks.id = t.id AND t.completed_at IS NOT NULL AND t.collected_at IS NULL AND tasks.collected_at IS NULL
      RETURNING tasks.id
    )
    SELECT t.id, t.data, t.completed_at, t.status_code, t.status_message, ${OBSERVATION_JSON}
    FROM t LEFT JOIN observations o ON o.id = t.observation_id`,
};

/**
 * task_get's read: the account's unexpired task `id` (a lowercase UUID) with its observation, in
 * one statement that also marks a finished task collected the first time (`collected_at` is set
 * only while null). Null when there is no such task (HTTP 404 / 40400).
 */
export async function collectTask(sql: Sql, id: string, accountId: number): Promise<EnvelopeTask | null> {
  const { rows } = await sql.query<TaskGetRow>(COLLECT_TASK, [id, accountId]);
  const row = rows[0];
  if (!row) return null;
  return { id: row.id, data: row.data, completedAt: row.completed_at, statusCode: row.status_code, statusMessage: row.status_message, observation: observationFromJson(row.observation) };
}

/** One finished, uncollected task_post task as tasks_ready lists it; dates ISO 8601 UTC with ms (as `toISOString`). */
export interface ReadyTask {
  id: string;
  asin: string;
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
  text: `SELECT id, asin, marketplace, tag, status_code AS "statusCode", ${isoUtc('created_at')} AS "datePosted", ${isoUtc('completed_at')} AS "dateCompleted"
    FROM tasks
    WHERE account_id = $1::int AND endpoint = 'task_post' AND collected_at IS NULL AND completed_at IS NOT NULL AND expires_at > now()
    ORDER BY completed_at, id
    LIMIT $2::int`,
};

/** tasks_ready's read: the account's finished, uncollected, unexpired task_post tasks, oldest first, at most `limit`. */
export async function readyTasks(sql: Sql, accountId: number, limit: number): Promise<ReadyTask[]> {
  return (await sql.query<ReadyTask>(READY_TASKS, [accountId, limit])).rows;
}
