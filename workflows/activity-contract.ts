/**
 * The activity contract: every activity the workflows schedule, with its input and output. The
 * workflows proxy activities through this interface only (never the worker's implementation), and
 * worker/activities/index.ts `createActivities(deps)` returns an object that `satisfies` it, so a
 * signature that drifts on either side fails the typecheck. Inputs and outputs are plain data
 * (workflow history carries ids, never HTML or bodies).
 */
import type { ReconcileReport, RetentionReport } from '../core/domain/maintenance-reports.js';
import type {
  DeliverKeywordRunInput,
  DeliverKeywordRunResult,
  DeliveryOutcome,
  MonitoringRunStart,
  RunRefund,
  StartMonitoringRunInput,
  SubscriptionState,
} from '../core/domain/subscription-messages.js';
import type { ReadProductInput, ReadProductResult, ReadSearchPageInput, ReadSearchPageResult } from '../core/domain/task-messages.js';
import type { DeliverWebhookInput, DeliverWebhookResult } from '../core/domain/webhook-messages.js';
import type { STATUS } from '../core/domain/status-codes.js';

/** The codes a task fails with when not charged: product not found, source unavailable. */
export type NotChargedTaskCode = (typeof STATUS)['PRODUCT_NOT_FOUND' | 'SOURCE_UNAVAILABLE'];

/** Activities today's workflow code schedules. */
export interface ActivityContract {
  /**
   * Reads a product page, stores the observation; with `taskId` also marks the task running and
   * completes it, with `monitoringRun` stores it paid for that run. Runs on the page-read queue.
   * Fails with `SourceBlocked` / `SourceUnavailable` (retried) or `MonitoringRunClosed`.
   */
  readProductPage(input: ReadProductInput): Promise<ReadProductResult>;
  /**
   * Reads one results page of a search task's keyword (or answers from a stored read since
   * `reuseSince`), stores the SearchResults observation. Runs on the page-read queue. Fails with
   * `SourceBlocked` / `SourceUnavailable` (robot check, error or degraded page: retried).
   */
  readSearchPage(input: ReadSearchPageInput): Promise<ReadSearchPageResult>;
  /** Completes a search task with its observations (page order); unread pages are refunded. */
  completeSearchTask(input: { taskId: string; observationIds: string[] }): Promise<void>;
  /** Fails a task with a not-charged code and refunds it (once). */
  failTask(input: { taskId: string; code: NotChargedTaskCode }): Promise<void>;
  /** Starts a monitoring run: checks the subscription and its account, reserves the price when asked. */
  startMonitoringRun(input: StartMonitoringRunInput): Promise<MonitoringRunStart>;
  /** Refunds a reserved run whose page was not read. */
  refundMonitoringRun(input: { runKey: string }): Promise<RunRefund>;
  /**
   * Delivers a reserved keyword run's pages: attached to the subscription, the reservation kept,
   * the rank rules judged. Fails with `MonitoringRunClosed` when the run may not be delivered.
   */
  deliverKeywordRun(input: DeliverKeywordRunInput): Promise<DeliverKeywordRunResult>;
  /** One webhook attempt; runs on the webhook queue. Fails with `WebhookAccountBusy` (retried). */
  deliverWebhook(input: DeliverWebhookInput): Promise<DeliverWebhookResult>;
  /** One run of the task reconciler. */
  reconcileTasks(): Promise<ReconcileReport>;
  /** One run of the retention purge (heartbeats per batch). */
  purgeExpiredData(): Promise<RetentionReport>;
}

/**
 * Activities only histories recorded by older workflow code schedule when they replay or resume:
 * productTask before patch `read-completes-task` (workflows/legacy-product-task.ts) and
 * monitorSubscription before patch `monitor-reserve-before-read`. Each goes when its patch is
 * retired (the steps are in those modules' docstrings).
 */
export interface LegacyActivityContract {
  /** Marks a task running. */
  markTaskRunning(input: { taskId: string }): Promise<void>;
  /** Completes a task from a stored observation; returns its final status code (20000 or 40402). */
  completeTask(input: { taskId: string; observationId: string }): Promise<number>;
  /** The subscription's status as stored (`deleted` once its row is gone). */
  getSubscriptionStatus(input: { subscriptionId: number }): Promise<SubscriptionState>;
  /** Charges the monitoring price for an observation read before it was paid. */
  deliverMonitoringObservation(input: { subscriptionId: number; observationId: string }): Promise<DeliveryOutcome>;
}

/** Everything a worker must register so that every open workflow can go on. */
export type WorkerActivities = ActivityContract & LegacyActivityContract;
