/**
 * The API's side of Temporal for product tasks; the implementation is shared with the worker's
 * task reconciler (core/temporal/task-launcher.ts).
 */
export { temporalTaskLauncher, type TaskLabels, type TaskLauncher } from '../../core/temporal/task-launcher.js';
