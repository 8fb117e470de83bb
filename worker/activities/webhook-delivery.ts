/**
 * One webhook attempt (api-spec.md "Events"): load what is delivered — a task (postback: POST of
 * the task_get envelope; pingback: GET of the expanded URL) or a stored change event (POST of its
 * body) — build the signed request with the event's id (`X-Event-Id`), check the URL, send it
 * pinned to the checked address, record the attempt in `webhook_deliveries` (the account's
 * delivery log). Bodies never leave this activity; it returns the outcome only.
 *
 * It runs on the webhook task queue (core/domain/queues.ts `webhookQueue`). An account holds at
 * most WEBHOOK_ACCOUNT_SLOTS attempts of this process at once: beyond that the attempt fails at
 * once with the retryable `WebhookAccountBusy` (Temporal tries it again shortly, see
 * workflows/webhook-delivery.ts), so one tenant's slow receiver cannot take every slot. A disabled
 * account's deliveries stop: the attempt is recorded as refused (`account disabled`) and not retried.
 */
import { webhookAttempts } from '../../core/metrics.js';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../../core/db/db.js';
import type { Logger } from '../../core/logger.js';
import { taskGetEnvelope } from '../../api/rest/envelope/task-get.js';
import { taskGetViewOf } from '../../core/task-reads.js';
import { withSearchResults } from '../../core/services/task-results.js';
import { OBSERVATION_INCLUDE } from '../../core/observations.js';
import { recordAttempt, storedEvent, taskEventId } from '../../core/webhook-events.js';
import { expandPingbackUrl } from '../../core/webhooks/pingback-url.js';
import { dnsResolver, sendPinned, systemResolver, type AttemptResult, type HostResolver } from '../../core/webhooks/pinned-request.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, WEBHOOK_USER_AGENT, signWebhook } from '../../core/webhooks/signing.js';
import { DEFAULT_WEBHOOK_PORTS, MAX_WEBHOOK_URL_LENGTH, checkWebhookUrl } from '../../core/webhooks/url-policy.js';
import { WEBHOOK_ACCOUNT_BUSY } from '../../core/domain/activity-errors.js';
import type { DeliverWebhookInput, DeliverWebhookResult, TaskWebhookKind, WebhookKind } from '../../core/domain/webhook-messages.js';
import { AccountSlots } from './webhook-account-slots.js';

export interface WebhookDeliveryDeps {
  db: Db;
  logger: Logger;
  webhooks: {
    /** WEBHOOK_ALLOWLIST entries (`host` or `host:port`). */
    allowlist: readonly string[];
    /** WEBHOOK_PORTS; default 80 and 443. */
    ports?: readonly number[];
    /** WEBHOOK_ACCOUNT_SLOTS: attempts of one account under way at once in this process; default unlimited. */
    accountSlots?: number;
    /**
     * Host name resolution at delivery time, for every host (tests map names). Default: DNS through
     * c-ares (`dnsResolver`, off the libuv thread pool); WEBHOOK_ALLOWLIST hosts through the system
     * resolver, which also reads /etc/hosts.
     */
    resolve?: HostResolver;
  };
}

/** The error type of an attempt that failed for a reason of its own: a failed attempt, never retried by Temporal. */
const ATTEMPT_ERROR = 'WebhookAttemptError';

export function createWebhookDeliveryActivities({ db, logger, webhooks }: WebhookDeliveryDeps) {
  const dns = dnsResolver();
  const resolverFor = (allowlisted: boolean) => webhooks.resolve ?? (allowlisted ? systemResolver : dns);
  const ports = webhooks.ports ?? DEFAULT_WEBHOOK_PORTS;
  const slots = new AccountSlots(webhooks.accountSlots ?? Number.POSITIVE_INFINITY);

  /** What one attempt sends: to which URL, which body (none: a pingback's GET), for which event and account. */
  interface Delivery {
    eventId: string;
    kind: WebhookKind;
    taskId: string | null;
    accountId: number;
    account: { webhookSecret: string; disabled: boolean };
    target: string;
    body: string | undefined;
  }

  /** A task's postback or pingback; null when the task or its URL of that kind is gone. */
  async function taskDelivery(taskId: string, kind: TaskWebhookKind, eventId: string | undefined, startedAt: number): Promise<Delivery | null> {
    const task = await db.prisma.task.findUnique({
      where: { id: taskId },
      include: { observation: { include: OBSERVATION_INCLUDE }, account: { select: { webhookSecret: true, disabled: true } } },
    });
    const configured = kind === 'postback' ? task?.postbackUrl : task?.pingbackUrl;
    if (!task || !configured) return null;
    return {
      eventId: eventId ?? (await taskEventId(db, task, kind, configured)),
      kind, taskId: task.id, accountId: task.accountId, account: task.account,
      target: kind === 'pingback' ? expandPingbackUrl(configured, task) : configured,
      body: kind === 'postback' ? JSON.stringify(taskGetEnvelope(await withSearchResults(db, taskGetViewOf(task)), startedAt)) : undefined,
    };
  }

  /** What the attempt delivers: the task's webhook of its kind, or the stored event (a change event's body as recorded). */
  async function deliveryOf(input: DeliverWebhookInput, startedAt: number): Promise<Delivery | null> {
    if (input.eventId === undefined) return input.taskId !== undefined && input.kind !== 'change' ? taskDelivery(input.taskId, input.kind, undefined, startedAt) : null;
    const event = await storedEvent(db, input.eventId);
    if (!event) return null;
    if (event.kind !== 'change') return event.taskId ? taskDelivery(event.taskId, event.kind as TaskWebhookKind, event.id, startedAt) : null;
    if (!event.url || event.body === null) return null;
    return { eventId: event.id, kind: 'change', taskId: null, accountId: event.accountId, account: event.account, target: event.url, body: event.body };
  }

  /** One attempt for a delivery of an account that has a slot. */
  async function attempt(input: DeliverWebhookInput, log: Logger): Promise<DeliverWebhookResult> {
    const startedAt = performance.now();
    const delivery = await deliveryOf(input, startedAt);
    if (!delivery) {
      log.warn('no such task or event, or no URL to deliver it to: nothing to deliver');
      return { outcome: 'refused', httpStatus: null };
    }
    const { target, body } = delivery;
    const verdict = checkWebhookUrl(target, webhooks.allowlist, { maxLength: Infinity, ports });
    let result: AttemptResult;
    const sentAt = performance.now();
    if (delivery.account.disabled) {
      result = { outcome: 'refused', httpStatus: null, error: 'account disabled' };
    } else if (!verdict.ok) {
      result = { outcome: 'refused', httpStatus: null, error: `URL refused: ${verdict.reason} (${verdict.detail})` };
    } else {
      // Signed at every attempt with the account's current secret.
      const headers: Record<string, string> = {
        'User-Agent': WEBHOOK_USER_AGENT,
        [SIGNATURE_HEADER]: signWebhook(body ?? verdict.url.href, delivery.account.webhookSecret),
        [EVENT_ID_HEADER]: delivery.eventId,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      };
      result = await sendPinned({
        url: verdict.url, method: body === undefined ? 'GET' : 'POST', headers, body, timeoutMs: input.timeoutMs,
        resolve: resolverFor(verdict.allowlisted), allowlisted: verdict.allowlisted, signal: Context.current().cancellationSignal,
      });
    }
    const durationMs = Math.round(performance.now() - sentAt);
    const url = (verdict.ok ? verdict.url.href : target).slice(0, MAX_WEBHOOK_URL_LENGTH);
    const retried = result.outcome === 'failed' && input.retryInMs !== undefined;
    await recordAttempt(db, {
      taskId: delivery.taskId, eventId: delivery.eventId, accountId: delivery.accountId, kind: delivery.kind, url, attempt: input.attempt,
      outcome: result.outcome, httpStatus: result.httpStatus, durationMs, error: result.error,
      nextRetryAt: retried ? new Date(Date.now() + input.retryInMs!) : null, redelivery: input.redelivery === true,
    });
    const level = result.outcome === 'delivered' ? 'info' : 'warn';
    log[level]({ eventId: delivery.eventId, outcome: result.outcome, httpStatus: result.httpStatus, durationMs, error: result.error }, 'webhook attempt');
    webhookAttempts.inc({ kind: delivery.kind, outcome: result.outcome });
    return { outcome: result.outcome, httpStatus: result.httpStatus };
  }

  return {
    /**
     * One attempt of a delivery. @throws the retryable `WebhookAccountBusy` when the task's account
     * has no free slot; any other failure is non-retryable (the workflow counts it as a failed attempt).
     */
    async deliverWebhook(input: DeliverWebhookInput): Promise<DeliverWebhookResult> {
      const log = logger.child({ taskId: input.taskId, eventId: input.eventId, kind: input.kind, attempt: input.attempt });
      let release: (() => void) | null = null;
      try {
        // The account's share is checked before anything else: an attempt that has to wait costs
        // no database query (deliveries started before the account was carried look it up).
        const accountId = input.accountId ?? (input.eventId !== undefined
          ? (await db.prisma.webhookEvent.findUnique({ where: { id: input.eventId }, select: { accountId: true } }))?.accountId
          : (await db.prisma.task.findUnique({ where: { id: input.taskId }, select: { accountId: true } }))?.accountId);
        if (accountId !== undefined) {
          release = slots.tryAcquire(accountId);
          if (!release) {
            throw ApplicationFailure.retryable(`account ${accountId} has ${slots.used(accountId)} deliveries under way`, WEBHOOK_ACCOUNT_BUSY);
          }
        }
        return await attempt(input, log);
      } catch (error) {
        if (error instanceof ApplicationFailure || Context.current().cancellationSignal.aborted) throw error;
        throw ApplicationFailure.nonRetryable((error as Error).message ?? String(error), ATTEMPT_ERROR);
      } finally {
        release?.();
      }
    },
  };
}
