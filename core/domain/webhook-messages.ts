/**
 * Webhook deliveries of task_post tasks (api-spec.md "Events"): the plan a finished task carries,
 * the `webhookDelivery` workflow's input and outcome, one attempt's input and result, and the
 * workflow id and fairness key of a delivery. Plain data only: bodies never enter workflow history.
 */

/** The two webhook kinds of a task_post task (api-spec.md "Events"). */
export type WebhookKind = 'postback' | 'pingback';

/** The webhook kinds a task_post task asked for: `postback` when it has a postback_url, `pingback` when a pingback_url. */
export function webhookKindsOf(postbackUrl: string | null, pingbackUrl: string | null): WebhookKind[] {
  return [...(postbackUrl ? ['postback' as const] : []), ...(pingbackUrl ? ['pingback' as const] : [])];
}

/** Which deliveries to start for a finished task, on what schedule (config travels in the input:
 *  workflows cannot read it). */
export interface WebhookPlan {
  kinds: WebhookKind[];
  /** Delays before retries 1..n, ms (WEBHOOK_RETRY_DELAYS). */
  retryDelaysMs: number[];
  /** One attempt's time limit, ms (WEBHOOK_TIMEOUT). */
  timeoutMs: number;
  /** The task's account: its share of the webhook slots is checked before the task is loaded. */
  accountId?: number;
  /** The receivers as operators see them (core/domain/operator-view.ts `displayUrl`), by kind: the deliveries' summaries. */
  targets?: Record<string, string>;
}

/** Input of the `webhookDelivery` workflow (workflowId = `webhookWorkflowId(taskId, kind)`). */
export interface WebhookDeliveryInput {
  taskId: string;
  kind: WebhookKind;
  /** Delays before retries 1..n, ms (WEBHOOK_RETRY_DELAYS). */
  retryDelaysMs: number[];
  /** One attempt's time limit, ms (WEBHOOK_TIMEOUT). */
  timeoutMs: number;
  /** The task's account (absent in deliveries whose input did not carry it: looked up then). */
  accountId?: number;
}

/** How one attempt or a whole delivery ended (`webhook_deliveries.outcome`). */
export type WebhookOutcome = 'delivered' | 'failed' | 'refused';

/** Input of the `deliverWebhook` activity: ids only, never the body. */
export interface DeliverWebhookInput {
  taskId: string;
  kind: WebhookKind;
  /** 1 for the first attempt. */
  attempt: number;
  /** The attempt's time limit, ms. */
  timeoutMs: number;
  /** The task's account, when the delivery knows it. */
  accountId?: number;
}

/** Output of the `deliverWebhook` activity. */
export interface DeliverWebhookResult {
  outcome: WebhookOutcome;
  /** The receiver's HTTP status; null when no response arrived. */
  httpStatus: number | null;
}

/** How a `webhookDelivery` workflow ended. */
export interface WebhookDeliveryOutcome {
  taskId: string;
  kind: WebhookKind;
  attempts: number;
  outcome: WebhookOutcome;
}

/**
 * The Temporal fairness key of an account's webhook deliveries (workflow and attempts): where the
 * server dispatches by fairness (`matching.enableFairness`, on in the embedded dev server), a burst
 * of one account's deliveries is dispatched in turn with other accounts' work instead of ahead of it.
 */
export function webhookFairness(accountId: number): { fairnessKey: string } {
  return { fairnessKey: `account:${accountId}` };
}

/** Workflow id of a task's delivery of one kind: `webhook:<taskId>:<kind>`. */
export function webhookWorkflowId(taskId: string, kind: WebhookKind): string {
  return `webhook:${taskId}:${kind}`;
}
