/** What the scheduled maintenance runs report (the task reconciler and the retention purge). */

/** What one run of the task reconciler did (core/task-reconciler.ts). */
export interface ReconcileReport {
  /** Unfinished tasks looked at. */
  checked: number;
  /** task_post tasks without a workflow whose workflow it started. */
  started: number;
  /** Tasks it failed with 50301 and refunded (workflow closed or refused, live task orphaned). */
  refunded: number;
  /** Tasks whose workflow was running (looked at again later). */
  running: number;
  /** Tasks left for the next run because Temporal or the database could not be asked. */
  errors: number;
  /**
   * Monitoring runs' reservations (core/monitoring-reconciler.ts): looked at, refunded because
   * their workflow run had ended, still going, left for the next run.
   */
  monitoring?: { checked: number; refunded: number; running: number; errors: number };
  /** Read reservations (core/reservations.ts) open past their bound: looked at, refunded, left for the next run. */
  reads?: { checked: number; refunded: number; errors: number };
}

/** Rows one run of the retention purge (core/retention.ts) deleted, per table. */
export interface RetentionReport {
  tasks: number;
  webhookDeliveries: number;
  /** Change events of alert rules (core/alerts.ts). */
  changeEvents: number;
  /** Bulk batches (their `batch_rows` go first, uncounted). */
  batches: number;
  rateLimits: number;
  idempotencyKeys: number;
  sourceReads: number;
  /** Monthly partitions of observations dropped (OBSERVATION_RETENTION_DAYS), by name. */
  observationPartitions: string[];
  /** Search observations deleted (observed before OBSERVATION_RETENTION_DAYS). */
  searchObservations: number;
}
