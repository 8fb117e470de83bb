/**
 * Inputs and outputs shared by workflows, activities and the API. Plain data only: workflow
 * history carries ids, never HTML. Signal and query definitions are plain name objects, safe to
 * import from the API as well as from workflows.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** Input of the `productTask` workflow (workflowId = task id). */
export interface ProductTaskInput {
  taskId: string;
  asin: string;
  /** Marketplace code (`com`, `de`, ...). */
  marketplace: string;
  /** Attempts of the source read before the task fails with 50301. */
  readAttempts: number;
  /** First retry delay of a failed read, ms. */
  retryInitialMs: number;
  /** For live reads: the whole read must finish within this many ms (api-spec.md: 60 s). */
  budgetMs?: number;
  /** task_post tasks with a postback_url / pingback_url: deliveries to start once the task finishes. */
  webhooks?: WebhookPlan;
}

/**
 * How urgent a product read is: `live` (a caller is waiting), `high` (task_post priority 2) or
 * `normal` (task_post priority 1, monitoring). api-spec.md "task_post": priority 2 is processed
 * before priority 1.
 */
export type ReadUrgency = 'live' | 'high' | 'normal';

/**
 * Temporal priority key of a read (1 = dispatched first; Temporal's default is 3). The key is set
 * on the `productTask` workflow; its activities, the page read included, inherit it, so when the
 * page-read queue has a backlog the matching service hands out live reads first, then priority 2
 * tasks, then priority 1 tasks (Temporal "Task Queue Priority").
 */
export const PRIORITY_KEYS: Record<ReadUrgency, number> = { live: 1, high: 2, normal: 3 };

/** The read urgency of a task_post task from its spec priority (1 or 2). */
export function urgencyOfPriority(priority: number): ReadUrgency {
  return priority === 2 ? 'high' : 'normal';
}

/** What the source-read activity returns: the stored observation's id and its status. */
export interface ReadProductResult {
  /** Stored observation id, as a decimal string (bigint is not JSON). */
  observationId: string;
  status: 'ok' | 'no_bsr' | 'not_found';
  /** Only when the read was given a task id: the task's status code after the read completed it. */
  statusCode?: number;
  /** Only when the read was given a monitoring run: how its observation was paid. */
  delivery?: RunDelivery;
}

/** Input of the source-read activity: a task's read, a monitoring run's read, or a plain read. */
export interface ReadProductInput {
  asin: string;
  marketplace: string;
  /** The monitoring subscription the observation is attached to. */
  subscriptionId?: number;
  /** With `subscriptionId`: the reserved monitoring run the read is for (core/monitoring-runs.ts). */
  monitoringRun?: string;
  /** The task the read completes. */
  taskId?: string;
}

/** How a `productTask` workflow ended. */
export interface ProductTaskOutcome {
  taskId: string;
  statusCode: number;
  observationId: string | null;
}

/** Error type names raised by activities (ApplicationFailure.type). */
export const SOURCE_BLOCKED = 'SourceBlocked';
export const SOURCE_UNAVAILABLE = 'SourceUnavailable';
/** A monitoring run's page must not be read: not reserved, refunded, or its subscription deleted. */
export const MONITORING_RUN_CLOSED = 'MonitoringRunClosed';
/** The account already has WEBHOOK_ACCOUNT_SLOTS deliveries under way in this worker: retried later. */
export const WEBHOOK_ACCOUNT_BUSY = 'WebhookAccountBusy';

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
}

/** Input of the `webhookDelivery` workflow (workflowId = `webhookWorkflowId(taskId, kind)`). */
export interface WebhookDeliveryInput {
  taskId: string;
  kind: WebhookKind;
  retryDelaysMs: number[];
  timeoutMs: number;
  /** The task's account (absent in deliveries started before it was carried: looked up then). */
  accountId?: number;
}

/** How one attempt or a whole delivery ended (`webhook_deliveries.outcome`). */
export type WebhookOutcome = 'delivered' | 'failed' | 'refused';

/** Input and output of the `deliverWebhook` activity: ids only, never the body. */
export interface DeliverWebhookInput {
  taskId: string;
  kind: WebhookKind;
  attempt: number;
  timeoutMs: number;
  /** The task's account, when the delivery knows it. */
  accountId?: number;
}
export interface DeliverWebhookResult {
  outcome: WebhookOutcome;
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

// ---------------------------------------------------------------------------------------------
// Monitoring: one `monitorSubscription` workflow per subscription (workflowId `monitor:<id>`).
// ---------------------------------------------------------------------------------------------

/** Monitoring frequencies (api-spec.md "Subscription"). */
export const FREQUENCIES = ['hourly', 'every_6h', 'daily'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** The workflow id of a subscription's monitor. */
export function monitorWorkflowId(subscriptionId: number): string {
  return `monitor:${subscriptionId}`;
}

/**
 * Offset of a subscription's first read within its first interval: the fractional part of
 * id × golden ratio, which spreads consecutive ids evenly over the interval (a batch of adds
 * neither reads all at once nor re-reads all at once every interval).
 */
export function firstReadOffset(subscriptionId: number, intervalMs: number): number {
  return Math.floor(intervalMs * ((subscriptionId * 0.6180339887498949) % 1));
}

/** What the workflow carries across continue-as-new (times are epoch ms of workflow time). */
export interface MonitorState {
  frequency: Frequency;
  intervalMs: number;
  /** True while the subscription is `paused_balance` or its account disabled: no reads, only status rechecks. */
  paused: boolean;
  /** Why it is paused (absent while it runs, and in states carried from before reasons were kept). */
  pausedReason?: MonitorPauseReason;
  /** When the next read is due; the first one at `firstReadOffset` within the first interval. */
  nextDueAt: number;
  /** While paused: when the database status is checked again (a resume signal checks at once). */
  recheckAt: number;
  /** Observations delivered (charged or free `not_found`) since the subscription's workflow began. */
  deliveries: number;
  /** Runs of this workflow chain (1 for the first; +1 per continue-as-new). */
  run: number;
}

/** Input of `monitorSubscription`: one object; `state` is set only by continue-as-new. */
export interface MonitorSubscriptionInput {
  subscriptionId: number;
  asin: string;
  marketplace: string;
  frequency: Frequency;
  /** MONITORING_INTERVALS[frequency], resolved by the caller (workflows cannot read config). */
  intervalMs: number;
  /** Start paused (the subscription was added as `paused_balance`). */
  paused: boolean;
  /** Attempts of one source read before the tick counts as failed (not charged, not paused). */
  readAttempts: number;
  /** First retry delay of a failed read, ms. */
  retryInitialMs: number;
  /** Epoch ms of the first read, when the starter delayed the workflow's start up to it (a new
   *  monitor then costs the worker nothing until its first read); else now + `firstReadOffset`. */
  firstReadAt?: number;
  /** Continue-as-new after this many ticks (reads or paused rechecks); tests lower it. */
  continueAsNewAfter?: number;
  state?: MonitorState;
}

/** New settings of a subscription (monitoring/add again with the same asin + marketplace). */
export interface MonitorSettings {
  frequency: Frequency;
  intervalMs: number;
}

/** Status of a subscription as the database has it; `deleted` once its row is gone. */
export type SubscriptionState = 'active' | 'paused_balance' | 'deleted';

/** How a monitoring run started (core/monitoring-runs.ts `startMonitoringRun`). */
export type MonitoringRunStart =
  /** the monitoring price is reserved for this run: read the page */
  | 'reserved'
  /** the subscription may run; no reservation was asked for */
  | 'active'
  /** the account's subscriptions are paused, or the balance could not cover the price (now paused) */
  | 'paused_balance'
  /** the account is disabled: nothing charged, read or delivered until it is enabled */
  | 'account_disabled'
  /** the subscription no longer exists */
  | 'deleted';

/** How a monitoring run's observation was paid: charged (the reservation stands) or free
 *  (`not_found`: the reservation was refunded; 40402 is never charged). */
export type RunDelivery = 'charged' | 'free';

/** Input of the `startMonitoringRun` activity. */
export interface StartMonitoringRunInput {
  subscriptionId: number;
  /** Unique per run: `m:<subscription id>:<workflow run id>:<run number within the workflow run>`. */
  runKey: string;
  /** Reserve the monitoring price (a read is due); false: only report whether the subscription may run. */
  reserve: boolean;
}

/** Why a monitor does not read: the account's balance, or the account is disabled. */
export type MonitorPauseReason = 'balance' | 'account_disabled';

/** What became of one delivered observation (see core/subscriptions.ts `deliverObservation`). */
export type DeliveryOutcome =
  /** charged at the monitoring price; now the subscription's latest observation */
  | 'charged'
  /** a `not_found` observation: attached and latest, never charged (40402 is never charged) */
  | 'free'
  /** the balance could not cover it (or the account was already paused): detached, not charged */
  | 'paused'
  /** the subscription was deleted meanwhile: nothing charged */
  | 'deleted';

/** How a monitor ended. */
export interface MonitorOutcome {
  subscriptionId: number;
  deliveries: number;
}

/** Settings changed (frequency, and so the interval): the pending timer is re-planned at once. */
export const configureMonitorSignal = defineSignal<[MonitorSettings]>('monitorConfigure');
/** The account was topped up: check the status now and read again if a read is due. */
export const resumeMonitorSignal = defineSignal('monitorResume');
/** The subscription was deleted: end the workflow. */
export const stopMonitorSignal = defineSignal('monitorStop');
/** The workflow's carried state (for tests and operators). */
export const monitorStateQuery = defineQuery<MonitorState>('monitorState');

/**
 * The task queue of page reads: a worker polls it with exactly as many activity slots as the
 * browser grid has pages, so a backlog waits in Temporal (schedule-to-start) instead of burning
 * the reads' start-to-close time in a worker queue.
 */
export function pageReadQueue(taskQueue: string): string {
  return `${taskQueue}-page-reads`;
}

// ---------------------------------------------------------------------------------------------
// Scheduled maintenance (worker/schedules.ts): the task reconciler and the retention purge.
// ---------------------------------------------------------------------------------------------

/** What one run of the task reconciler did (worker/activities/maintenance.ts). */
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
}

/** Rows one run of the retention purge deleted, per table. */
export interface RetentionReport {
  tasks: number;
  webhookDeliveries: number;
  rateLimits: number;
  idempotencyKeys: number;
  sourceReads: number;
}

/**
 * The task queue of webhook attempts: a worker polls it with WEBHOOK_SLOTS activity slots of its
 * own, so receivers that answer slowly (or never, until WEBHOOK_TIMEOUT) cannot hold the slots that
 * monitoring runs and task bookkeeping need on the main queue.
 */
export function webhookQueue(taskQueue: string): string {
  return `${taskQueue}-webhooks`;
}
