/**
 * webhookDelivery: one workflow per task and kind (workflowId `webhook:<taskId>:<kind>`), so each
 * delivery shows in the Web UI with its own history. The first attempt runs at once; after each
 * failure the workflow sleeps the next of WEBHOOK_RETRY_DELAYS (durable timers) and tries again;
 * success (2xx) or a refusal (private address at delivery) ends it (api-spec.md "Events").
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ActivityFailure, ParentClosePolicy, WorkflowIdReusePolicy, proxyActivities, sleep, startChild } from '@temporalio/workflow';
import type { Activities } from '../worker/activities/index.js';
import {
  webhookWorkflowId,
  type WebhookDeliveryInput, type WebhookDeliveryOutcome, type WebhookOutcome, type WebhookPlan,
} from './messages.js';

/** Margin of the activity's start-to-close over WEBHOOK_TIMEOUT: loading the task, recording. */
const ACTIVITY_MARGIN_MS = 5_000;

export async function webhookDelivery(input: WebhookDeliveryInput): Promise<WebhookDeliveryOutcome> {
  // No activity-level retries: the workflow owns the retry schedule.
  const { deliverWebhook } = proxyActivities<Activities>({
    startToCloseTimeout: input.timeoutMs + ACTIVITY_MARGIN_MS,
    retry: { maximumAttempts: 1 },
  });
  const attempts = 1 + input.retryDelaysMs.length;
  for (let attempt = 1; ; attempt++) {
    let outcome: WebhookOutcome;
    try {
      ({ outcome } = await deliverWebhook({ taskId: input.taskId, kind: input.kind, attempt, timeoutMs: input.timeoutMs }));
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      outcome = 'failed'; // the activity itself failed or timed out: an unrecorded failed attempt
    }
    if (outcome !== 'failed' || attempt >= attempts) return { taskId: input.taskId, kind: input.kind, attempts: attempt, outcome };
    await sleep(input.retryDelaysMs[attempt - 1]!);
  }
}

/**
 * Starts a finished task's deliveries as abandoned children (they outlive the task's workflow).
 * A delivery already started for the task and kind is left alone.
 */
export async function startWebhookDeliveries(taskId: string, plan: WebhookPlan | undefined): Promise<void> {
  for (const kind of plan?.kinds ?? []) {
    try {
      await startChild(webhookDelivery, {
        workflowId: webhookWorkflowId(taskId, kind),
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        args: [{ taskId, kind, retryDelaysMs: plan!.retryDelaysMs, timeoutMs: plan!.timeoutMs }],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
}
