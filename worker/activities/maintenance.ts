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
    /** One run of the task reconciler: starts or refunds charged tasks nothing will finish. */
    async reconcileTasks(): Promise<ReconcileReport> {
      return reconcileTasks({ db: deps.db, workflows: deps.workflows, logger: deps.logger.child({ component: 'task-reconciler' }), liveBudgetMs: deps.liveBudgetMs });
    },
    /** One run of the retention purge; heartbeats after every batch. */
    async purgeExpiredData(): Promise<RetentionReport> {
      const report = await purgeExpiredData(deps.db, { retentionDays: deps.retentionDays, observationRetentionDays: deps.observationRetentionDays, onBatch: () => Context.current().heartbeat() });
      deps.logger.info({ component: 'retention', ...report }, 'retention purge finished');
      return report;
    },
  };
}
