/**
 * Monitoring subscriptions (api-spec.md "Subscription"): one `monitorSubscription` workflow per
 * subscription (workflowId `monitor:<id>`). Its input and carried state, the names of the signals
 * and the query it answers, the subscription states the database reports, and how a monitoring
 * run starts and how its observation is paid. The Temporal definitions built from these names
 * live in workflows/definitions.ts; clients may signal and query by name.
 */

/** Monitoring frequencies (api-spec.md "Subscription"). */
export const FREQUENCIES = ['hourly', 'every_6h', 'daily'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** The workflow id of a subscription's monitor. */
export function monitorWorkflowId(subscriptionId: number): string {
  return `monitor:${subscriptionId}`;
}

/** Signal (argument: `MonitorSettings`): settings changed; the pending timer is re-planned at once. */
export const MONITOR_CONFIGURE_SIGNAL = 'monitorConfigure';
/** Signal: the account was topped up; check the status now and read again if a read is due. */
export const MONITOR_RESUME_SIGNAL = 'monitorResume';
/** Signal: the subscription was deleted; end the workflow. */
export const MONITOR_STOP_SIGNAL = 'monitorStop';
/** Query (answer: `MonitorStateView`): the workflow's carried state (for tests and operators), answered from its start. */
export const MONITOR_STATE_QUERY = 'monitorState';

/** Why a monitor does not read: the account's balance, or the account is disabled. */
export type MonitorPauseReason = 'balance' | 'account_disabled';

/** What the workflow carries across continue-as-new (times are epoch ms of workflow time). */
export interface MonitorState {
  frequency: Frequency;
  /** Time between reads, ms (MONITORING_INTERVALS[frequency]). */
  intervalMs: number;
  /** True while the subscription is `paused_balance` or its account disabled: no reads, only status rechecks. */
  paused: boolean;
  /** Why it is paused (absent while it runs, and in states that did not carry a reason). */
  pausedReason?: MonitorPauseReason;
  /** When the next read is due; the first one at `firstReadOffset` within the first interval. */
  nextDueAt: number;
  /** While paused: when the database status is checked again (a resume signal checks at once). */
  recheckAt: number;
  /** Observations delivered (charged or free `not_found`) since the subscription's workflow began. */
  deliveries: number;
  /** Runs of this workflow chain (1 for the first; +1 per continue-as-new). */
  run: number;
  /** Keyword subscriptions: results pages each run reads (the configure signal changes it). */
  pages?: number;
  /**
   * The status code of the last read: 20000 (charged), 40402 (product not found, free) or 50301
   * (every attempt failed, refunded); absent before the first read.
   */
  lastResultCode?: number;
}

/** The state query's answer: the carried state and the next read as an ISO time (operators read it with `temporal workflow query`). */
export interface MonitorStateView extends MonitorState {
  /** `nextDueAt` as an ISO 8601 UTC time. */
  nextReadAt: string;
}

/** Input of `monitorSubscription`: one object; `state` is set only by continue-as-new. */
export interface MonitorSubscriptionInput {
  subscriptionId: number;
  /** The product of a product subscription; '' for a keyword subscription. */
  asin: string;
  marketplace: string;
  /** Keyword subscriptions (search-page-contract.md "API" Monitoring): what each run reads. */
  search?: { keyword: string; pages: number };
  frequency: Frequency;
  /** MONITORING_INTERVALS[frequency], ms, resolved by the caller (workflows cannot read config). */
  intervalMs: number;
  /** Start paused (the subscription was added as `paused_balance`). */
  paused: boolean;
  /** Attempts of one source read before the tick counts as failed (not charged, not paused). */
  readAttempts: number;
  /** First retry delay of a failed read, ms. */
  retryInitialMs: number;
  /** Epoch ms of the first read, chosen by the starter (`firstReadOffset` into the first interval
   *  from the add); else now + `firstReadOffset`. */
  firstReadAt?: number;
  /** Continue-as-new after this many ticks (reads or paused rechecks); tests lower it. */
  continueAsNewAfter?: number;
  state?: MonitorState;
}

/** New settings of a subscription (monitoring/add again with the same asin + marketplace). */
export interface MonitorSettings {
  frequency: Frequency;
  /** MONITORING_INTERVALS[frequency], ms. */
  intervalMs: number;
  /** The subscription's tag, when the sender knows it (the monitor's `Tag` search attribute follows it). */
  tag?: string | null;
  /** Keyword subscriptions: results pages per run, from the next run on. */
  pages?: number;
}

/** How a monitor ended. */
export interface MonitorOutcome {
  subscriptionId: number;
  deliveries: number;
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
  /** Keyword subscriptions: the results pages the run reads, each charged the monitoring search price. */
  pages?: number;
}

/** Input of the `deliverKeywordRun` activity: the pages a reserved keyword run read, page 1 first. */
export interface DeliverKeywordRunInput {
  subscriptionId: number;
  runKey: string;
  /** The pages the run reserved (`StartMonitoringRunInput.pages`); those not read are refunded. */
  reservedPages: number;
  /** The stored SearchResults of the pages read (decimal strings: bigint is not JSON). */
  searchObservationIds: string[];
}

/** What a keyword run's delivery did: the pages are the subscription's latest, the reservation kept. */
export interface DeliverKeywordRunResult {
  /** The rank rules' change events to deliver (absent: none fired, or no alert_url). */
  changes?: { accountId: number; eventIds: string[]; retryDelaysMs: number[]; timeoutMs: number };
}

/** What became of a reserved run when it is refunded (core/monitoring-runs.ts `refundMonitoringRun`). */
export type RunRefund = 'refunded' | 'delivered' | 'none';

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
