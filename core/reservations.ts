/**
 * One model of a charge taken before its result exists: a reservation. It is a ledger entry (the
 * balance moves at once, as for any charge) with a `run_key`, settled exactly once:
 * - `kept` when its result was delivered;
 * - `refunded` when it was not: a `refund` entry keyed `<run key>:refund` gives the money back.
 * Surfaces that reserve: monitoring runs (`m:<subscription>:<run>:<n>`, core/monitoring-runs.ts)
 * and synchronous reads that cannot charge and read in one transaction (`r:<task id>`: GraphQL
 * analytics fields, history exports). Reads that can are one transaction instead
 * (core/ledger.ts `chargedRead`) and never reserve. A reservation still open past its bound is
 * settled by the reconciler (worker/activities/maintenance.ts): a read reservation past
 * READ_RESERVATION_BOUND_MS is refunded (its request is long gone, so its result never came or
 * was never confirmed); a monitoring one once its workflow run ended
 * (core/monitoring-reconciler.ts). The ledger lists each reservation with its settlement.
 */
import type { Db } from './db/db.js';
import type { Statement } from './db/sql.js';
import type { Logger } from './logger.js';

/** A read's reservation still open after this long is refunded by the reconciler (ms). */
export const READ_RESERVATION_BOUND_MS = 30 * 60_000;
/** Reservations settled per reconciler run, at most. */
const BATCH = 500;

/** The run key of a synchronous read's reservation. */
export function readReservationKey(taskId: string): string {
  return `r:${taskId}`;
}

const KEEP: Statement = {
  name: 'reservations:keep',
  text: `UPDATE ledger_entries SET settlement = 'kept', settled_at = now()
    WHERE run_key = ANY($1::text[]) AND settlement IS NULL AND kind <> 'refund'`,
};

/** Settles open reservations as `kept` (their result was delivered); settled ones stay as they are. */
export async function keepReservations(db: Db, runKeys: readonly string[]): Promise<void> {
  if (runKeys.length) await db.sql.query(KEEP, [runKeys]);
}

// Settles the reservation as refunded and credits its amount back with the refund entry, in one
// statement: a reservation already settled (kept, or refunded by another caller) changes nothing.
const REFUND: Statement = {
  name: 'reservations:refund',
  text: `WITH settled AS (
      UPDATE ledger_entries SET settlement = 'refunded', settled_at = now()
      WHERE run_key = $1 AND settlement IS NULL AND kind <> 'refund'
      RETURNING account_id, -amount AS amount, task_id, subscription_id
    ), credited AS (
      UPDATE accounts a SET balance = a.balance + s.amount FROM settled s WHERE a.id = s.account_id
      RETURNING a.id, a.balance, s.amount, s.task_id, s.subscription_id
    ), entry AS (
      INSERT INTO ledger_entries (account_id, kind, amount, balance_after, task_id, subscription_id, run_key, note)
      SELECT id, 'refund', amount, balance, task_id, subscription_id, $1 || ':refund', $2 FROM credited
    )
    SELECT count(*)::int AS refunded FROM credited`,
};

/**
 * Refunds an open reservation once (see REFUND).
 * @returns true when this call refunded it; false when it was settled already or does not exist.
 */
export async function refundReservation(db: Db, input: { runKey: string; note: string }): Promise<boolean> {
  const { rows } = await db.sql.query<{ refunded: number }>(REFUND, [input.runKey, input.note]);
  return (rows[0]?.refunded ?? 0) > 0;
}

const OPEN_READS: Statement = {
  name: 'reservations:open-reads',
  text: `SELECT run_key FROM ledger_entries
    WHERE run_key IS NOT NULL AND settlement IS NULL AND kind <> 'refund' AND run_key LIKE 'r:%'
      AND created_at < now() - $1::int * interval '1 millisecond'
    ORDER BY created_at LIMIT $2::int`,
};

/** What one reconciler run did with read reservations. */
export interface ReadReservationReport {
  checked: number;
  refunded: number;
  errors: number;
}

/**
 * Refunds the read reservations open past `boundMs` (default READ_RESERVATION_BOUND_MS). Errors on
 * one are logged and counted, never thrown.
 * @throws only when the open reservations cannot be read at all.
 */
export async function reconcileReadReservations(deps: { db: Db; logger: Logger }, options: { boundMs?: number } = {}): Promise<ReadReservationReport> {
  const { rows } = await deps.db.sql.query<{ run_key: string }>(OPEN_READS, [options.boundMs ?? READ_RESERVATION_BOUND_MS, BATCH]);
  const report = { checked: rows.length, refunded: 0, errors: 0 };
  for (const { run_key: runKey } of rows) {
    try {
      if (await refundReservation(deps.db, { runKey, note: 'read not confirmed' })) {
        report.refunded++;
        deps.logger.warn({ runKey }, 'a read reservation was never settled by its request; refunded it');
      }
    } catch (error) {
      report.errors++;
      deps.logger.error({ err: error, runKey }, 'could not refund an open read reservation; next run');
    }
  }
  return report;
}
