/**
 * Scheduled maintenance activities (worker/schedules.ts): the task reconciler
 * (core/task-reconciler.ts) and the retention purge (core/retention.ts). Dependencies are
 * injected: the database, a Temporal client for the reconciler's starts and looks, and the two
 * settings they need from the configuration.
 */
import { Context } from '@temporalio/activity';
import type { Db } from '../../core/db/db.js';
import type { Logger } from '../../core/logger.js';
import { purgeExpiredData } from '../../core/retention.js';
import { reconcilerSettlements } from '../../core/metrics.js';
import { reconcileMonitoringRuns } from '../../core/monitoring-reconciler.js';
import { reconcileReadReservations } from '../../core/reservations.js';
import { reconcileTasks } from '../../core/task-reconciler.js';
import type { TaskWorkflows } from '../../core/temporal/task-launcher.js';
import type { ReconcileReport, RetentionReport } from '../../core/domain/maintenance-reports.js';

/** What the maintenance activities need: `liveBudgetMs` is LIVE_BUDGET, `retentionDays` RETENTION_DAYS. */
export interface MaintenanceDeps {
  db: Db;
  logger: Logger;
  workflows: TaskWorkflows;
  liveBudgetMs: number;
  retentionDays: number;
  /** OBSERVATION_RETENTION_DAYS (undefined: observations are kept). */
  observationRetentionDays?: number;
}

export function createMaintenanceActivities(deps: MaintenanceDeps) {
  return {
    /**
     * One run of the reconciler: starts or refunds charged tasks nothing will finish, refunds
     * monitoring runs' reservations whose workflow run ended and read reservations left open past
     * their bound (core/reservations.ts); counted in `retail_reconciler_settlements_total`.
     */
    async reconcileTasks(): Promise<ReconcileReport> {
      const logger = deps.logger.child({ component: 'task-reconciler' });
      const report = await reconcileTasks({ db: deps.db, workflows: deps.workflows, logger, liveBudgetMs: deps.liveBudgetMs });
      const monitoring = await reconcileMonitoringRuns({ db: deps.db, runs: deps.workflows, logger }).catch((error: unknown) => {
        logger.error({ err: error }, 'could not look for open monitoring reservations; next run');
        return { checked: 0, refunded: 0, running: 0, errors: 1 };
      });
      const reads = await reconcileReadReservations({ db: deps.db, logger }).catch((error: unknown) => {
        logger.error({ err: error }, 'could not look for open read reservations; next run');
        return { checked: 0, refunded: 0, errors: 1 };
      });
      for (const [surface, outcomes] of [['task', report], ['monitoring', monitoring], ['read', reads]] as const) {
        for (const outcome of ['started', 'refunded', 'errors'] as const) {
          const n = (outcomes as Partial<Record<typeof outcome, number>>)[outcome] ?? 0;
          if (n) reconcilerSettlements.inc({ surface, outcome: outcome === 'errors' ? 'error' : outcome }, n);
        }
      }
      return { ...report, monitoring, reads };
    },
    /** One run of the retention purge; heartbeats after every batch. */
    async purgeExpiredData(): Promise<RetentionReport> {
      const report = await purgeExpiredData(deps.db, { retentionDays: deps.retentionDays, observationRetentionDays: deps.observationRetentionDays, onBatch: () => Context.current().heartbeat() });
      deps.logger.info({ component: 'retention', ...report }, 'retention purge finished');
      return report;
    },
  };
}
