/**
 * All activities, built from injected dependencies (`createActivities(deps)`). The result
 * `satisfies` the workflows' activity contract (workflows/activity-contract.ts), legacy activities
 * of older histories included, so an implementation whose signature drifts from what the
 * workflows schedule fails the typecheck.
 */
import type { WorkerActivities } from '../../workflows/activity-contract.js';
import { createLegacyTaskActivities } from './legacy-task-bookkeeping.js';
import { createMaintenanceActivities, type MaintenanceDeps } from './maintenance.js';
import { createProductReadActivities, type ProductReadDeps } from './product-read.js';
import { createSearchReadActivities } from './search-read.js';
import { createTaskActivities } from './task-bookkeeping.js';
import { createMonitoringActivities } from './monitoring.js';
import { createWebhookDeliveryActivities, type WebhookDeliveryDeps } from './webhook-delivery.js';

export type ActivityDeps = ProductReadDeps & WebhookDeliveryDeps & MaintenanceDeps;

export function createActivities(deps: ActivityDeps) {
  return {
    ...createProductReadActivities(deps),
    ...createSearchReadActivities(deps),
    ...createTaskActivities(deps),
    ...createLegacyTaskActivities(deps),
    ...createMonitoringActivities(deps),
    ...createWebhookDeliveryActivities(deps),
    ...createMaintenanceActivities(deps),
  } satisfies WorkerActivities;
}
