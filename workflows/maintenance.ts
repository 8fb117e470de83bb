/**
 * Scheduled maintenance workflows, started by Temporal Schedules the worker registers at start-up
 * (worker/schedules.ts): `taskReconciler` (every minute) and `retentionPurge` (hourly). Each run
 * is one activity; a failed run is simply followed by the next one.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { ReconcileReport, RetentionReport } from '../core/domain/maintenance-reports.js';
import type { ActivityContract } from './activity-contract.js';

const reconciler = proxyActivities<ActivityContract>({
  startToCloseTimeout: '5m',
  retry: { maximumAttempts: 1 },
});

const purge = proxyActivities<ActivityContract>({
  startToCloseTimeout: '1h',
  heartbeatTimeout: '5m',
  retry: { initialInterval: '10s', maximumAttempts: 3 },
});

/** One run of the task reconciler (core/task-reconciler.ts). */
export async function taskReconciler(): Promise<ReconcileReport> {
  return reconciler.reconcileTasks();
}

/** One run of the retention purge (core/retention.ts). */
export async function retentionPurge(): Promise<RetentionReport> {
  return purge.purgeExpiredData();
}
