/**
 * Starting a new delivery of a stored webhook event from the API (`redeliver`): a `webhookDelivery`
 * workflow of its own, `webhook:<eventId>:redelivery:<id>`, on the same retry schedule as every
 * delivery (WEBHOOK_RETRY_DELAYS, WEBHOOK_TIMEOUT) and with the account's fairness key.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Config } from '../config.js';
import { deliveryAttributes, deliverySummary, startLabels } from '../domain/operator-view.js';
import { redeliveryWorkflowId, webhookFairness, type WebhookDeliveryInput, type WebhookKind } from '../domain/webhook-messages.js';

/** What the API needs of Temporal for webhook redeliveries; tests use the real one on a dev server. */
export interface WebhookLauncher {
  /**
   * Starts a new delivery of the event (signed anew at each attempt, same event id).
   * @returns the delivery's workflow id.
   * @throws what Temporal answers when it refuses the start.
   */
  redeliver(event: { eventId: string; kind: WebhookKind; accountId: number }): Promise<string>;
}

/** The Temporal implementation. */
export function temporalWebhookLauncher(client: Client, config: Config): WebhookLauncher {
  return {
    async redeliver({ eventId, kind, accountId }) {
      const workflowId = redeliveryWorkflowId(eventId, randomUUID());
      const facts = { eventId, kind, accountId, redelivery: true };
      await client.workflow.start('webhookDelivery', {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId,
        ...startLabels(deliveryAttributes(facts), deliverySummary(facts)),
        priority: webhookFairness(accountId),
        args: [{ eventId, kind, redelivery: true, retryDelaysMs: [...config.WEBHOOK_RETRY_DELAYS], timeoutMs: config.WEBHOOK_TIMEOUT, accountId } satisfies WebhookDeliveryInput],
      });
      return workflowId;
    },
  };
}
