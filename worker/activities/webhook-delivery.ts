/**
 * One webhook attempt (api-spec.md "Events"): load the task, build the signed request (postback:
 * POST of the task_get envelope; pingback: GET of the expanded URL), check the URL, send it pinned
 * to the checked address, record the attempt in `webhook_deliveries`. Bodies never leave this
 * activity; it returns the outcome only.
 *
 * It runs on the webhook task queue (core/domain/queues.ts `webhookQueue`). An account holds at
 * most WEBHOOK_ACCOUNT_SLOTS attempts of this process at once: beyond that the attempt fails at
 * once with the retryable `WebhookAccountBusy` (Temporal tries it again shortly, see
 * workflows/webhook-delivery.ts), so one tenant's slow receiver cannot take every slot. A disabled
 * account's deliveries stop: the attempt is recorded as refused (`account disabled`) and not retried.
 */
import { webhookAttempts } from '../../core/metrics.js';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { PrismaClient } from '../../core/db/prisma.js';
import type { Logger } from '../../core/logger.js';
import { taskGetEnvelope } from '../../api/rest/envelope/task-get.js';
import { taskGetViewOf } from '../../core/task-reads.js';
import { expandPingbackUrl } from '../../core/webhooks/pingback-url.js';
import { dnsResolver, sendPinned, systemResolver, type AttemptResult, type HostResolver } from '../../core/webhooks/pinned-request.js';
import { SIGNATURE_HEADER, WEBHOOK_USER_AGENT, signWebhook } from '../../core/webhooks/signing.js';
import { DEFAULT_WEBHOOK_PORTS, MAX_WEBHOOK_URL_LENGTH, checkWebhookUrl } from '../../core/webhooks/url-policy.js';
import { WEBHOOK_ACCOUNT_BUSY } from '../../core/domain/activity-errors.js';
import type { DeliverWebhookInput, DeliverWebhookResult } from '../../core/domain/webhook-messages.js';
import { AccountSlots } from './webhook-account-slots.js';

export interface WebhookDeliveryDeps {
  prisma: PrismaClient;
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

export function createWebhookDeliveryActivities({ prisma, logger, webhooks }: WebhookDeliveryDeps) {
  const dns = dnsResolver();
  const resolverFor = (allowlisted: boolean) => webhooks.resolve ?? (allowlisted ? systemResolver : dns);
  const ports = webhooks.ports ?? DEFAULT_WEBHOOK_PORTS;
  const slots = new AccountSlots(webhooks.accountSlots ?? Number.POSITIVE_INFINITY);

  /** One attempt for a task of an account that has a slot. */
  async function attempt(input: DeliverWebhookInput, log: Logger): Promise<DeliverWebhookResult> {
    const startedAt = performance.now();
    const task = await prisma.task.findUnique({
      where: { id: input.taskId },
      include: { observation: true, account: { select: { webhookSecret: true, disabled: true } } },
    });
    const configured = input.kind === 'postback' ? task?.postbackUrl : task?.pingbackUrl;
    if (!task || !configured) {
      log.warn('no such task or no URL of this kind: nothing to deliver');
      return { outcome: 'refused', httpStatus: null };
    }
    const target = input.kind === 'pingback' ? expandPingbackUrl(configured, task) : configured;
    const verdict = checkWebhookUrl(target, webhooks.allowlist, { maxLength: Infinity, ports });
    let result: AttemptResult;
    const sentAt = performance.now();
    if (task.account.disabled) {
      result = { outcome: 'refused', httpStatus: null, error: 'account disabled' };
    } else if (!verdict.ok) {
      result = { outcome: 'refused', httpStatus: null, error: `URL refused: ${verdict.reason} (${verdict.detail})` };
    } else {
      const secret = task.account.webhookSecret;
      const body = input.kind === 'postback' ? JSON.stringify(taskGetEnvelope(taskGetViewOf(task), startedAt)) : undefined;
      const headers: Record<string, string> = {
        'User-Agent': WEBHOOK_USER_AGENT,
        [SIGNATURE_HEADER]: signWebhook(body ?? verdict.url.href, secret),
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      };
      result = await sendPinned({
        url: verdict.url, method: body === undefined ? 'GET' : 'POST', headers, body, timeoutMs: input.timeoutMs,
        resolve: resolverFor(verdict.allowlisted), allowlisted: verdict.allowlisted, signal: Context.current().cancellationSignal,
      });
    }
    const durationMs = Math.round(performance.now() - sentAt);
    const url = (verdict.ok ? verdict.url.href : target).slice(0, MAX_WEBHOOK_URL_LENGTH);
    await prisma.webhookDelivery.create({
      data: { taskId: task.id, kind: input.kind, url, attempt: input.attempt, outcome: result.outcome, httpStatus: result.httpStatus, durationMs, error: result.error },
    });
    const level = result.outcome === 'delivered' ? 'info' : 'warn';
    log[level]({ outcome: result.outcome, httpStatus: result.httpStatus, durationMs, error: result.error }, 'webhook attempt');
    webhookAttempts.inc({ kind: input.kind, outcome: result.outcome });
    return { outcome: result.outcome, httpStatus: result.httpStatus };
  }

  return {
    /**
     * One attempt of a delivery. @throws the retryable `WebhookAccountBusy` when the task's account
     * has no free slot; any other failure is non-retryable (the workflow counts it as a failed attempt).
     */
    async deliverWebhook(input: DeliverWebhookInput): Promise<DeliverWebhookResult> {
      const log = logger.child({ taskId: input.taskId, kind: input.kind, attempt: input.attempt });
      let release: (() => void) | null = null;
      try {
        // The account's share is checked before anything else: an attempt that has to wait costs
        // no database query (deliveries started before the account was carried look it up).
        const accountId = input.accountId ?? (await prisma.task.findUnique({ where: { id: input.taskId }, select: { accountId: true } }))?.accountId;
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
