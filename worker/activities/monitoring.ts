/**
 * Monitoring activities: the status check before each read and the delivery of the observation
 * read (charge, or pause the account). The rules live in core/subscriptions.ts.
 */
import { monitoringDeliveries } from '../../core/metrics.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { deliverObservation, subscriptionState } from '../../core/subscriptions.js';
import type { DeliveryOutcome, SubscriptionState } from '../../workflows/messages.js';

export function createMonitoringActivities({ prisma }: { prisma: PrismaClient }) {
  return {
    /** The subscription's status as stored (`deleted` once its row is gone). */
    async getSubscriptionStatus(input: { subscriptionId: number }): Promise<SubscriptionState> {
      return subscriptionState(prisma, input.subscriptionId);
    },
    /** Charges the monitoring price for an observation read for the subscription (see `deliverObservation`). */
    async deliverMonitoringObservation(input: { subscriptionId: number; observationId: string }): Promise<DeliveryOutcome> {
      const outcome = await deliverObservation(prisma, { subscriptionId: input.subscriptionId, observationId: BigInt(input.observationId) });
      monitoringDeliveries.inc({ outcome });
      return outcome;
    },
  };
}
