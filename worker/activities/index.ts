/**
 * All activities, built from injected dependencies (`createActivities(deps)`); workflows import
 * the `Activities` type only.
 */
import { createMaintenanceActivities, type MaintenanceDeps } from './maintenance.js';
import { createProductReadActivities, type ProductReadDeps } from './product-read.js';
import { createTaskActivities } from './task-bookkeeping.js';
import { createMonitoringActivities } from './monitoring.js';
import { createWebhookDeliveryActivities, type WebhookDeliveryDeps } from './webhook-delivery.js';

export type ActivityDeps = ProductReadDeps & WebhookDeliveryDeps & MaintenanceDeps;

export function createActivities(deps: ActivityDeps) {
  return {
    ...createProductReadActivities(deps),
    ...createTaskActivities(deps),
    ...createMonitoringActivities(deps),
    ...createWebhookDeliveryActivities(deps),
    ...createMaintenanceActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
