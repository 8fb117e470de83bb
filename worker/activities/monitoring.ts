/**
 * Monitoring activities: starting a run (status check and reservation of the monitoring price),
 * refunding a run whose page was not read, and — for monitors whose history predates reservations
 * — the status check and the delivery of an observation read before it was paid. The rules live in
 * core/monitoring-runs.ts and core/subscriptions.ts.
 */
import { monitoringDeliveries } from '../../core/metrics.js';
import type { Db } from '../../core/db/db.js';
import { refundMonitoringRun, startMonitoringRun } from '../../core/monitoring-runs.js';
import { deliverObservation, subscriptionState } from '../../core/subscriptions.js';
import type { DeliveryOutcome, MonitoringRunStart, RunRefund, StartMonitoringRunInput, SubscriptionState } from '../../core/domain/subscription-messages.js';

export function createMonitoringActivities({ db }: { db: Db }) {
  return {
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
