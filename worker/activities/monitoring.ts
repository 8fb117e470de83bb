/**
 * Monitoring activities: starting a run (status check and reservation of the monitoring price),
 * refunding a run whose page was not read, delivering a keyword run's pages (core/keyword-monitoring.ts), and — for monitors whose history predates reservations
 * — the status check and the delivery of an observation read before it was paid. The rules live in
 * core/monitoring-runs.ts and core/subscriptions.ts.
 */
import { monitoringDeliveries } from '../../core/metrics.js';
import type { Db } from '../../core/db/db.js';
import { ApplicationFailure } from '@temporalio/activity';
import { deliverKeywordRun } from '../../core/keyword-monitoring.js';
import { MonitoringRunError, refundMonitoringRun, startMonitoringRun } from '../../core/monitoring-runs.js';
import { deliverObservation, subscriptionState } from '../../core/subscriptions.js';
import { MONITORING_RUN_CLOSED } from '../../core/domain/activity-errors.js';
import type {
  DeliverKeywordRunInput,
  DeliverKeywordRunResult,
  DeliveryOutcome,
  MonitoringRunStart,
  RunRefund,
  StartMonitoringRunInput,
  SubscriptionState,
} from '../../core/domain/subscription-messages.js';

export interface MonitoringActivityDeps {
  db: Db;
  /** The schedule of change-event deliveries (WEBHOOK_RETRY_DELAYS, WEBHOOK_TIMEOUT), handed to the monitor with the events. */
  webhookSchedule: { retryDelaysMs: readonly number[]; timeoutMs: number };
}

export function createMonitoringActivities({ db, webhookSchedule }: MonitoringActivityDeps) {
  return {
    /**
     * Delivers a reserved keyword run's pages: attached to the subscription, the reservation kept,
     * the rank rules judged. A run that must not be delivered (refunded, subscription deleted) fails
     * with a non-retryable `MonitoringRunClosed`; the monitor then refunds it.
     */
    async deliverKeywordRun(input: DeliverKeywordRunInput): Promise<DeliverKeywordRunResult> {
      try {
        const changes = await deliverKeywordRun(db, { ...input, searchObservationIds: input.searchObservationIds.map(BigInt) });
        monitoringDeliveries.inc({ outcome: 'charged' });
        return changes ? { changes: { ...changes, retryDelaysMs: [...webhookSchedule.retryDelaysMs], timeoutMs: webhookSchedule.timeoutMs } } : {};
      } catch (error) {
        if (error instanceof MonitoringRunError) throw ApplicationFailure.nonRetryable(error.message, MONITORING_RUN_CLOSED);
        throw error;
      }
    },
    /** The subscription's status as stored (`deleted` once its row is gone). */
    async getSubscriptionStatus(input: { subscriptionId: number }): Promise<SubscriptionState> {
      return subscriptionState(db, input.subscriptionId);
    },
    /** Starts a monitoring run: checks the subscription and its account, and reserves the price when asked. */
    async startMonitoringRun(input: StartMonitoringRunInput): Promise<MonitoringRunStart> {
      return startMonitoringRun(db, input);
    },
    /** Refunds a reserved run whose page was not read (`refunded`, `delivered` when it was, `none`). */
    async refundMonitoringRun(input: { runKey: string }): Promise<RunRefund> {
      const outcome = await refundMonitoringRun(db, input);
      if (outcome === 'refunded') monitoringDeliveries.inc({ outcome: 'refunded' });
      return outcome;
    },
    /** Charges the monitoring price for an observation read for the subscription (see `deliverObservation`). */
    async deliverMonitoringObservation(input: { subscriptionId: number; observationId: string }): Promise<DeliveryOutcome> {
      const outcome = await deliverObservation(db, { subscriptionId: input.subscriptionId, observationId: BigInt(input.observationId) });
      monitoringDeliveries.inc({ outcome });
      return outcome;
    },
  };
}
