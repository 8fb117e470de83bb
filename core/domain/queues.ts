/**
 * Task queue names derived from the worker's main queue (TEMPORAL_TASK_QUEUE). Workflows route
 * activities to them; the worker polls each with its own slot count.
 */

/**
 * The task queue of page reads: a worker polls it with exactly as many activity slots as the
 * browser grid has pages, so a backlog waits in Temporal (schedule-to-start) instead of burning
 * the reads' start-to-close time in a worker queue.
 */
export function pageReadQueue(taskQueue: string): string {
  return `${taskQueue}-page-reads`;
}

/**
 * The task queue of webhook attempts: a worker polls it with WEBHOOK_SLOTS activity slots of its
 * own, so receivers that answer slowly (or never, until WEBHOOK_TIMEOUT) cannot hold the slots that
 * monitoring runs and task bookkeeping need on the main queue.
 */
export function webhookQueue(taskQueue: string): string {
  return `${taskQueue}-webhooks`;
}
