/**
 * webhookDelivery: one workflow per task and kind (workflowId `webhook:<taskId>:<kind>`), per
 * change event (`webhook:<eventId>:change`) and per redelivery of a stored event, so each
 * delivery shows in the Web UI with its own history. The first attempt runs at once; after each
 * failure the workflow sleeps the next of WEBHOOK_RETRY_DELAYS (durable timers) and tries again;
 * success (2xx) or a refusal (private address or port at delivery, account disabled) ends it
 * (api-spec.md "Events").
 *
 * Attempts run on the webhook task queue with its own worker slots (`webhookQueue`). An attempt
 * whose account already uses its share of those slots fails at once with `WebhookAccountBusy`;
 * Temporal retries such an attempt with backoff (no workflow task, no history event meanwhile)
 * until a slot is free, for up to ACCOUNT_WAIT_LIMIT; the workflow's own schedule counts only real
 * attempts.
 *
 * For operators: the receiver's HTTP status of each attempt (0 when none answered) is upserted as
 * the `ResultCode` search attribute (patch `operator-view`), and the current details say which
 * attempt ran, how it ended and when the next one is due.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ActivityFailure, ParentClosePolicy, WorkflowIdReusePolicy, proxyActivities, sleep, startChild, workflowInfo } from '@temporalio/workflow';
import { SEARCH_ATTRIBUTES, deliveryAttributes, deliverySummary, startLabels, utcText } from '../core/domain/operator-view.js';
import { webhookQueue } from '../core/domain/queues.js';
import {
  webhookFairness,
  webhookWorkflowId,
  type ChangeDeliveries, type WebhookDeliveryInput, type WebhookDeliveryOutcome, type WebhookOutcome, type WebhookPlan,
} from '../core/domain/webhook-messages.js';
import type { ActivityContract } from './activity-contract.js';
import { showDetails, upsertResultCode } from './operator-view.js';

/** Margin of the activity's start-to-close over WEBHOOK_TIMEOUT: loading the task, recording. */
const ACTIVITY_MARGIN_MS = 5_000;
/** How long one attempt may wait for its account's slot before it counts as a failed attempt. */
const ACCOUNT_WAIT_LIMIT = '1h';

export async function webhookDelivery(input: WebhookDeliveryInput): Promise<WebhookDeliveryOutcome> {
  // The activity fails every attempt of its own non-retryably (the workflow owns the retry
  // schedule); only `WebhookAccountBusy` and a worker lost mid-attempt are retried by Temporal.
  const { deliverWebhook } = proxyActivities<ActivityContract>({
    taskQueue: webhookQueue(workflowInfo().taskQueue),
    startToCloseTimeout: input.timeoutMs + ACTIVITY_MARGIN_MS,
    scheduleToCloseTimeout: ACCOUNT_WAIT_LIMIT,
    // Unlimited attempts: bounded by ACCOUNT_WAIT_LIMIT.
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: Number.POSITIVE_INFINITY },
  });
  const attempts = 1 + input.retryDelaysMs.length;
  // What is delivered: a task's postback or pingback, or a stored event.
  const subject = {
    ...(input.taskId === undefined ? {} : { taskId: input.taskId }),
    ...(input.eventId === undefined ? {} : { eventId: input.eventId }),
  };
  for (let attempt = 1; ; attempt++) {
    showDetails([`attempt ${attempt} of ${attempts} under way`]);
    let outcome: WebhookOutcome;
    let httpStatus: number | null = null;
    try {
      ({ outcome, httpStatus } = await deliverWebhook({
        ...subject, kind: input.kind, attempt, timeoutMs: input.timeoutMs,
        ...(input.accountId === undefined ? {} : { accountId: input.accountId }),
        // The delivery log shows when a failed attempt is tried again.
        ...(attempt < attempts ? { retryInMs: input.retryDelaysMs[attempt - 1]! } : {}),
        ...(input.redelivery ? { redelivery: true } : {}),
      }));
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      outcome = 'failed'; // the activity itself failed or timed out: an unrecorded failed attempt
    }
    upsertResultCode(httpStatus ?? 0);
    const answer = httpStatus === null ? 'no answer' : `HTTP ${httpStatus}`;
    if (outcome !== 'failed' || attempt >= attempts) {
      showDetails([`${outcome} after ${attempt} of ${attempts} attempts (last: ${answer})`]);
      return { ...subject, kind: input.kind, attempts: attempt, outcome };
    }
    const delayMs = input.retryDelaysMs[attempt - 1]!;
    showDetails([`attempt ${attempt} of ${attempts} failed (${answer})`, `next attempt at ${utcText(Date.now() + delayMs)}`]);
    await sleep(delayMs);
  }
}

/**
 * Starts a finished task's deliveries as abandoned children (they outlive the task's workflow),
 * labelled for operators with the task's product, account and tag (the parent's `Tag` attribute).
 * A delivery already started for the task and kind is left alone.
 */
export async function startWebhookDeliveries(taskId: string, plan: WebhookPlan | undefined, product: { asin?: string; marketplace: string }): Promise<void> {
  for (const kind of plan?.kinds ?? []) {
    const facts = {
      taskId, kind, accountId: plan!.accountId, ...(product.asin === undefined ? {} : { asin: product.asin }), marketplace: product.marketplace,
      tag: workflowInfo().typedSearchAttributes.get(SEARCH_ATTRIBUTES.Tag) ?? null, target: plan!.targets?.[kind] ?? null,
    };
    try {
      await startChild(webhookDelivery, {
        workflowId: webhookWorkflowId(taskId, kind),
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        ...startLabels(deliveryAttributes(facts), deliverySummary(facts)),
        ...(plan!.accountId === undefined ? {} : { priority: webhookFairness(plan!.accountId) }),
        args: [{ taskId, kind, retryDelaysMs: plan!.retryDelaysMs, timeoutMs: plan!.timeoutMs, ...(plan!.accountId === undefined ? {} : { accountId: plan!.accountId }) }],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
}

/**
 * Starts the deliveries of the change events a monitoring read recorded, as abandoned children
 * (`webhook:<eventId>:change`), labelled for operators with the subscription and its product: they
 * outlive the monitor's run and continue-as-new. An event whose delivery was already started is
 * left alone.
 */
export async function startChangeDeliveries(changes: ChangeDeliveries, subscription: { subscriptionId: number; asin?: string; marketplace: string }): Promise<void> {
  for (const eventId of changes.eventIds) {
    const facts = { eventId, kind: 'change', accountId: changes.accountId, ...subscription };
    try {
      await startChild(webhookDelivery, {
        workflowId: webhookWorkflowId(eventId, 'change'),
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        ...startLabels(deliveryAttributes(facts), deliverySummary(facts)),
        priority: webhookFairness(changes.accountId),
        args: [{ eventId, kind: 'change', retryDelaysMs: changes.retryDelaysMs, timeoutMs: changes.timeoutMs, accountId: changes.accountId }],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
}
