/**
 * The dynamic configuration every Temporal server of the service runs with: the embedded dev
 * server takes it as `--dynamic-config-value` flags (core/temporal/dev-server.ts), the production
 * server as `deploy/temporal-dynamic-config.yaml` (docker-compose.yml), which must say the same
 * (test/unit/temporal-server-config.test.ts).
 *
 * - One partition per task queue: Temporal enforces priority keys within a partition, so with one
 *   partition priority 2 reads are strictly dispatched before priority 1 ones
 *   (core/domain/task-messages.ts `PRIORITY_KEYS`). One matching node serves every queue of the
 *   service, so partitions would buy nothing anyway.
 * - The new matcher: server 1.29 dispatches by priority only with it, and does not enable it by default.
 * - Fairness: within a priority, tasks of different fairness keys (webhook deliveries carry their
 *   account's, core/domain/webhook-messages.ts `webhookFairness`) are dispatched in turn, not
 *   first come first served.
 * - Eager workflow start (core/temporal/task-launcher.ts `eagerStart`): the first workflow task
 *   comes back in the start's answer to the worker in the API's process. On by default in server
 *   1.29; stated so that the start path does not depend on that default.
 */
export const SERVER_DYNAMIC_CONFIG = {
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  'matching.useNewMatcher': true,
  'matching.enableFairness': true,
  'system.enableEagerWorkflowStart': true,
} as const satisfies Record<string, number | boolean>;

/** The dev server's `--dynamic-config-value KEY=VALUE` arguments for `SERVER_DYNAMIC_CONFIG`. */
export function devServerDynamicConfigArgs(): string[] {
  return Object.entries(SERVER_DYNAMIC_CONFIG).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${String(value)}`]);
}
