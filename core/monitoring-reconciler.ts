/**
 * The monitoring side of the reconciler. A monitoring run reserves its price (a `monitoring`
 * ledger entry keyed by the run, core/monitoring-runs.ts; the reservation model is
 * core/reservations.ts) before its page is read, and the subscription's workflow settles it: the observation stored (kept), or the run refunded. A
 * workflow run terminated, reset or failed between the two settles nothing, so the reconciler
 * (run every minute by the worker's `task-reconciler` schedule, with the task reconciler) looks at
 * the open reservations older than MONITORING_GRACE_MS and refunds each whose workflow run has
 * closed or is gone; a run still going is left to its workflow. The refund is
 * `refundMonitoringRun`'s: under the account's lock, once, and never for a run whose observation
 * was stored meanwhile (a read that comes after it finds the run refunded and stores nothing).
 */
import pLimit from 'p-limit';
import type { Db } from './db/db.js';
import type { Statement } from './db/sql.js';
import type { Logger } from './logger.js';
import { refundMonitoringRun } from './monitoring-runs.js';

/** A reservation younger than this is left alone: its run is reading (ms). */
export const MONITORING_GRACE_MS = 2 * 60_000;
/** Reservations looked at per run, at most. */
export const MONITORING_BATCH = 200;
const CONCURRENCY = 8;

/** Whether one run of a subscription's monitor workflow is still going. */
export type MonitorRunState = 'running' | 'closed' | 'missing';

/** What the monitoring reconciler asks Temporal. */
export interface MonitorRuns {
  /**
   * The state of run `runId` of subscription `subscriptionId`'s monitor workflow.
   * @throws when Temporal cannot be asked (the reservation is left for the next run)
   */
  runState(subscriptionId: number, runId: string): Promise<MonitorRunState>;
}

/** What one run of the monitoring reconciler did. */
export interface MonitoringReconcileReport {
  /** Open reservations looked at. */
  checked: number;
  /** Reservations refunded because their workflow run had ended. */
  refunded: number;
  /** Reservations whose workflow run is still going. */
  running: number;
  /** Reservations left for the next run (Temporal or the database could not be asked). */
  errors: number;
}

const OPEN_RESERVATIONS: Statement = {
  name: 'monitoring-reconciler:open',
  text: `SELECT run_key FROM ledger_entries
    WHERE run_key IS NOT NULL AND settlement IS NULL AND kind = 'monitoring'
      AND created_at < now() - $1::int * interval '1 millisecond'
    ORDER BY created_at
    LIMIT $2::int`,
};

/** `m:<subscription id>:<workflow run id>:<n>` (workflows/monitor-subscription.ts) read back. */
export function monitorRunOf(runKey: string): { subscriptionId: number; runId: string } | null {
  const match = /^m:(\d+):([^:]+):\d+$/.exec(runKey);
  return match ? { subscriptionId: Number(match[1]), runId: match[2]! } : null;
}

/**
 * One run of the monitoring reconciler (see the module comment). Errors on one reservation are
 * counted and logged, never thrown.
 * @throws only when the open reservations cannot be read at all.
 */
export async function reconcileMonitoringRuns(deps: { db: Db; runs: MonitorRuns; logger: Logger }, options: { graceMs?: number } = {}): Promise<MonitoringReconcileReport> {
  const { rows } = await deps.db.sql.query<{ run_key: string }>(OPEN_RESERVATIONS, [options.graceMs ?? MONITORING_GRACE_MS, MONITORING_BATCH]);
  const limit = pLimit(CONCURRENCY);
  const verdicts = await Promise.all(rows.map(({ run_key: runKey }) => limit(async (): Promise<'refunded' | 'running' | 'error' | 'none'> => {
    const run = monitorRunOf(runKey);
    if (!run) return 'none';
    try {
      if ((await deps.runs.runState(run.subscriptionId, run.runId)) === 'running') return 'running';
      if ((await refundMonitoringRun(deps.db, { runKey })) !== 'refunded') return 'none';
      deps.logger.warn({ runKey, subscriptionId: run.subscriptionId }, 'the monitor workflow run ended before settling its reservation; refunded it');
      return 'refunded';
    } catch (error) {
      deps.logger.error({ err: error, runKey }, 'could not reconcile a monitoring reservation; next run');
      return 'error';
    }
  })));
  const count = (v: string) => verdicts.filter((x) => x === v).length;
  return { checked: rows.length, refunded: count('refunded'), running: count('running'), errors: count('error') };
}
