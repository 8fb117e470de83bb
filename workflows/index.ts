/** Every workflow the worker registers (workflowsPath points here). */
export { productTask } from './product-task.js';
export { searchTask } from './search-task.js';
export { webhookDelivery } from './webhook-delivery.js';
export { monitorSubscription } from './monitor-subscription.js';
export { retentionPurge, taskReconciler } from './maintenance.js';
