/**
 * Webhook deliveries (api-spec.md "Events"): postbacks and pingbacks of task_post tasks and the
 * `change` events of subscriptions' alert rules. The plan a finished task carries, the change
 * events a monitoring read hands its monitor, the `webhookDelivery` workflow's input and outcome,
 * one attempt's input and result, and the workflow id and fairness key of a delivery. Plain data
 * only: bodies never enter workflow history (a delivery names its task or its stored event).
 */

/** The webhook kinds: a task_post task's two (api-spec.md "Events") and an alert rule's `change`. */
export type WebhookKind = 'postback' | 'pingback' | 'change';

/** The webhook kinds of a task_post task. */
export type TaskWebhookKind = Exclude<WebhookKind, 'change'>;

/** Every kind, as the delivery log filters them. */
export const WEBHOOK_KINDS: readonly WebhookKind[] = ['postback', 'pingback', 'change'];

/** The webhook kinds a task_post task asked for: `postback` when it has a postback_url, `pingback` when a pingback_url. */
export function webhookKindsOf(postbackUrl: string | null, pingbackUrl: string | null): TaskWebhookKind[] {
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

/**
 * The change events a monitoring read recorded that are to be delivered (to the subscription's
 * alert_url), with the delivery schedule (config travels with them: workflows cannot read it).
 */
export interface ChangeDeliveries {
  /** Stored `webhook_events` ids, kind `change`. */
  eventIds: string[];
  /** The subscription's account: its share of the webhook slots and its fairness key. */
  accountId: number;
  /** Delays before retries 1..n, ms (WEBHOOK_RETRY_DELAYS). */
  retryDelaysMs: number[];
  /** One attempt's time limit, ms (WEBHOOK_TIMEOUT). */
  timeoutMs: number;
}

/**
 * Input of the `webhookDelivery` workflow: a task's postback or pingback (`taskId`, workflowId
 * `webhookWorkflowId(taskId, kind)`), or a stored event (`eventId`: a change event, workflowId
 * `webhookWorkflowId(eventId, 'change')`, or any event delivered again, `redeliveryWorkflowId`).
 */
export interface WebhookDeliveryInput {
  /** The task of a postback or pingback (absent when `eventId` names the event). */
  taskId?: string;
  /** The stored event to deliver (change events; redeliveries of any kind). */
  eventId?: string;
  kind: WebhookKind;
  /** A delivery started by `redeliver`: its attempts are marked so in the delivery log. */
  redelivery?: boolean;
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
  /** The task (postback, pingback), unless `eventId` is given. */
  taskId?: string;
  /** The stored event to deliver. */
  eventId?: string;
  kind: WebhookKind;
  /** 1 for the first attempt. */
  attempt: number;
  /** The attempt's time limit, ms. */
  timeoutMs: number;
  /** The task's account, when the delivery knows it. */
  accountId?: number;
  /** When this attempt fails, the next one follows after this many ms (absent: it is the last); for the delivery log. */
  retryInMs?: number;
  /** The attempt belongs to a redelivery. */
  redelivery?: boolean;
}

/** Output of the `deliverWebhook` activity. */
export interface DeliverWebhookResult {
  outcome: WebhookOutcome;
  /** The receiver's HTTP status; null when no response arrived. */
  httpStatus: number | null;
}

/** How a `webhookDelivery` workflow ended. */
export interface WebhookDeliveryOutcome {
  taskId?: string;
  eventId?: string;
  kind: WebhookKind;
  attempts: number;
  outcome: WebhookOutcome;
}

/**
 * The Temporal fairness key of an account's webhook deliveries (workflow and attempts): where the
 * server dispatches by fairness (`matching.enableFairness`: core/temporal/server-config.ts), a burst
 * of one account's deliveries is dispatched in turn with other accounts' work instead of ahead of it.
 */
export function webhookFairness(accountId: number): { fairnessKey: string } {
  return { fairnessKey: `account:${accountId}` };
}

/** Workflow id of a task's delivery of one kind, `webhook:<taskId>:<kind>`, or of a change event, `webhook:<eventId>:change`. */
export function webhookWorkflowId(taskOrEventId: string, kind: WebhookKind): string {
  return `webhook:${taskOrEventId}:${kind}`;
}

/** Workflow id of a redelivery of a stored event: `webhook:<eventId>:redelivery:<redeliveryId>` (a new id each time). */
export function redeliveryWorkflowId(eventId: string, redeliveryId: string): string {
  return `webhook:${eventId}:redelivery:${redeliveryId}`;
}
