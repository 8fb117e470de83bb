/**
 * The Temporal Schedules of scheduled maintenance, registered by every worker at start-up
 * (idempotently: the first creates them, later ones bring their settings up to date):
 * `task-reconciler` runs the `taskReconciler` workflow every minute (core/task-reconciler.ts),
 * `retention-purge` runs `retentionPurge` hourly (core/retention.ts). A run still under way when
 * the next is due makes that one skip; runs missed while Temporal was down are not caught up.
 * Operators see and pause them in the Temporal UI (Schedules) or `temporal schedule list`.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptionsAction, type ScheduleSpec } from '@temporalio/client';
import type { Config } from '../core/config.js';

/** The schedules: id, workflow type and interval. */
export const MAINTENANCE_SCHEDULES = [
  { scheduleId: 'task-reconciler', workflowType: 'taskReconciler', every: '1m', timeout: '10m' },
  { scheduleId: 'retention-purge', workflowType: 'retentionPurge', every: '1h', timeout: '4h' },
] as const;

/**
 * Creates the maintenance schedules on `config.TEMPORAL_TASK_QUEUE`, or updates them when they
 * exist (a worker of another version or configuration registered them).
 * @throws what Temporal answers when it refuses.
 */
export async function ensureMaintenanceSchedules(client: Client, config: Config): Promise<void> {
  for (const schedule of MAINTENANCE_SCHEDULES) {
    const spec: ScheduleSpec = { intervals: [{ every: schedule.every }] };
    const action: ScheduleOptionsAction = {
      type: 'startWorkflow', workflowType: schedule.workflowType, workflowId: schedule.scheduleId,
      taskQueue: config.TEMPORAL_TASK_QUEUE, workflowExecutionTimeout: schedule.timeout,
    };
    const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: 60_000 };
    try {
      await client.schedule.create({ scheduleId: schedule.scheduleId, spec, action, policies });
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      await client.schedule.getHandle(schedule.scheduleId).update((previous) => ({ ...previous, spec, action, policies }));
    }
  }
}
