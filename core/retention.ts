/**
 * The retention purge (operations-contract.md `RETENTION_DAYS`; api-spec.md "Limits": results are
 * kept 30 days), run hourly by the worker's `retentionPurge` schedule (worker/schedules.ts):
 * - finished tasks created more than RETENTION_DAYS ago, or past their `expires_at` (hidden from
 *   every read already), with their webhook deliveries; unfinished tasks are the reconciler's;
 *   their ledger entries stay (the ledger is the account's history of money, `task_id` is a plain
 *   column), and so do the observations they point to;
 * - webhook deliveries, change events (kind `change`, with their deliveries), bulk batches (with
 *   their rows) and rate-limit windows older than RETENTION_DAYS (a task's postback and pingback
 *   events go with the task);
 * - Idempotency-Key rows older than 24 hours (core/idempotency.ts);
 * - source reads older than 7 days (core/source-reads.ts).
 * Observations (the history we sell) are never deleted row by row: the run creates their monthly
 * partitions ahead (core/db/observation-partitions.ts) and, only when OBSERVATION_RETENTION_DAYS is
 * set, drops the partitions wholly older than it. Search observations (core/search-observations.ts)
 * follow the same setting: only when it is set, those observed before it are deleted in batches
 * (found through the BRIN index on `observed_at`); the item contents they referenced stay. Deletes run in batches of `batchSize` rows, one
 * short statement each, so no lock is held for long.
 */
import type { Db } from './db/db.js';
import type { Statement } from './db/sql.js';
import { IDEMPOTENCY_WINDOW_MS } from './idempotency.js';
import { dropObservationPartitionsBefore, ensureObservationPartitions } from './db/observation-partitions.js';
import { prismaQueryable } from './db/prisma.js';
import { pruneSourceReads } from './source-reads.js';
import type { RetentionReport } from './domain/maintenance-reports.js';

const DAY_MS = 86_400_000;

/** Rows deleted per statement. */
export const PURGE_BATCH = 1_000;
/** Batches per table and run, at most; what is left waits for the next run. */
export const PURGE_MAX_BATCHES = 500;

const TASKS: Statement = {
  name: 'retention:tasks',
  text: `WITH doomed AS (
      SELECT id FROM tasks
      WHERE state IN ('completed', 'failed') AND (created_at < now() - $1::int * interval '1 day' OR expires_at <= now())
      LIMIT $2::int
    ), deleted AS (
      DELETE FROM tasks WHERE id IN (SELECT id FROM doomed) RETURNING 1
    )
    SELECT count(*)::int AS n FROM deleted`,
};

// Bulk batches: their rows first, a batch of rows per statement, then the emptied batches.
const BATCH_ROWS: Statement = {
  name: 'retention:batch-rows',
  text: `WITH doomed AS (
      SELECT r.batch_id, r.row FROM batch_rows r JOIN batches b ON b.id = r.batch_id
      WHERE b.created_at < now() - $1::int * interval '1 day'
      LIMIT $2::int
    ), deleted AS (
      DELETE FROM batch_rows USING doomed WHERE batch_rows.batch_id = doomed.batch_id AND batch_rows.row = doomed.row RETURNING 1
    )
    SELECT count(*)::int AS n FROM deleted`,
};

const BATCHES: Statement = {
  name: 'retention:batches',
  text: `WITH deleted AS (
      DELETE FROM batches WHERE id IN (
        SELECT id FROM batches b WHERE created_at < now() - $1::int * interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM batch_rows r WHERE r.batch_id = b.id)
        LIMIT $2::int
      ) RETURNING 1
    )
    SELECT count(*)::int AS n FROM deleted`,
};

const WEBHOOK_DELIVERIES: Statement = {
  name: 'retention:webhook-deliveries',
  text: `WITH deleted AS (
      DELETE FROM webhook_deliveries WHERE id IN (
        SELECT id FROM webhook_deliveries WHERE created_at < now() - $1::int * interval '1 day' LIMIT $2::int
      ) RETURNING 1
    )
    SELECT count(*)::int AS n FROM deleted`,
};

const CHANGE_EVENTS: Statement = {
  name: 'retention:change-events',
  text: `WITH deleted AS (
      DELETE FROM webhook_events WHERE id IN (
        SELECT id FROM webhook_events WHERE kind = 'change' AND created_at < now() - $1::int * interval '1 day' LIMIT $2::int
      ) RETURNING 1
    )
    SELECT count(*)::int AS n FROM deleted`,
};

// rate_limits.expire is the window's end in epoch ms (core/rate-limits.ts).
const RATE_LIMITS: Statement = {
  name: 'retention:rate-limits',
  text: `WITH deleted AS (
      DELETE FROM rate_limits WHERE key IN (
        SELECT key FROM rate_limits WHERE expire < $1::bigint LIMIT $2::int
      ) RETURNING 1
    )
    SELECT count(*)::int AS n FROM deleted`,
};

// $1 is the cutoff instant (OBSERVATION_RETENTION_DAYS before the purge's clock).
const SEARCH_OBSERVATIONS: Statement = {
  name: 'retention:search-observations',
  text: `WITH deleted AS (
      DELETE FROM search_observations WHERE id IN (
        SELECT id FROM search_observations WHERE observed_at < $1::timestamptz LIMIT $2::int
      ) RETURNING 1
    )
    SELECT count(*)::int AS n FROM deleted`,
};

const IDEMPOTENCY_KEYS: Statement = {
  name: 'retention:idempotency-keys',
  text: `WITH deleted AS (
      DELETE FROM idempotency_keys WHERE (account_id, key) IN (
        SELECT account_id, key FROM idempotency_keys WHERE created_at < now() - $1::int * interval '1 millisecond' LIMIT $2::int
      ) RETURNING 1
    )
    SELECT count(*)::int AS n FROM deleted`,
};

/**
 * How the purge runs: `retentionDays` is RETENTION_DAYS, `observationRetentionDays`
 * OBSERVATION_RETENTION_DAYS (undefined: observations are kept); `onBatch` is called after each
 * statement (activity heartbeat); `now` is the purge's clock.
 */
export interface RetentionOptions {
  retentionDays: number;
  observationRetentionDays?: number;
  now?: Date;
  batchSize?: number;
  maxBatches?: number;
  onBatch?: () => void;
}

/**
 * Purges what is older than its retention (see the module comment).
 * @returns rows deleted per table.
 * @throws the database's error (the rows deleted so far stay deleted; the next run goes on).
 */
export async function purgeExpiredData(db: Db, options: RetentionOptions): Promise<RetentionReport> {
  const sql = db.sql;
  const batch = options.batchSize ?? PURGE_BATCH;
  const maxBatches = options.maxBatches ?? PURGE_MAX_BATCHES;
  const inBatches = async (statement: Statement, age: number | string): Promise<number> => {
    let total = 0;
    for (let i = 0; i < maxBatches; i++) {
      const n = (await sql.query<{ n: number }>(statement, [age, batch])).rows[0]?.n ?? 0;
      total += n;
      options.onBatch?.();
      if (n < batch) break;
    }
    return total;
  };
  const days = options.retentionDays;
  const tasks = await inBatches(TASKS, days);
  const webhookDeliveries = await inBatches(WEBHOOK_DELIVERIES, days);
  const changeEvents = await inBatches(CHANGE_EVENTS, days);
  await inBatches(BATCH_ROWS, days);
  const batches = await inBatches(BATCHES, days);
  const rateLimits = await inBatches(RATE_LIMITS, Date.now() - days * DAY_MS);
  const idempotencyKeys = await inBatches(IDEMPOTENCY_KEYS, IDEMPOTENCY_WINDOW_MS);
  const sourceReads = await pruneSourceReads(db);
  options.onBatch?.();
  const queryable = prismaQueryable(db.prisma);
  await ensureObservationPartitions(queryable);
  const observationCutoff = options.observationRetentionDays === undefined
    ? undefined
    : new Date((options.now ?? new Date()).getTime() - options.observationRetentionDays * DAY_MS);
  const observationPartitions = observationCutoff ? await dropObservationPartitionsBefore(queryable, observationCutoff) : [];
  options.onBatch?.();
  const searchObservations = observationCutoff ? await inBatches(SEARCH_OBSERVATIONS, observationCutoff.toISOString()) : 0;
  return { tasks, webhookDeliveries, changeEvents, batches, rateLimits, idempotencyKeys, sourceReads, observationPartitions, searchObservations };
}
