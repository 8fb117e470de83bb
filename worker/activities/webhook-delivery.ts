/**
 * One webhook attempt (api-spec.md "Events"): load the task, build the signed request (postback:
 * POST of the task_get envelope; pingback: GET of the expanded URL), check the URL, send it pinned
 * to the checked address, record the attempt in `webhook_deliveries`. Bodies never leave this
 * activity; it returns the outcome only.
 */
import { webhookAttempts } from '../../core/metrics.js';
import { Context } from '@temporalio/activity';
import type { PrismaClient } from '../../core/db/prisma.js';
import type { Logger } from '../../core/logger.js';
import { taskGetEnvelope } from '../../core/task-envelope.js';
import { expandPingbackUrl } from '../../core/webhooks/pingback-url.js';
import { sendPinned, systemResolver, type AttemptResult, type HostResolver } from '../../core/webhooks/pinned-request.js';
import { SIGNATURE_HEADER, WEBHOOK_USER_AGENT, signWebhook } from '../../core/webhooks/signing.js';
import { MAX_WEBHOOK_URL_LENGTH, checkWebhookUrl } from '../../core/webhooks/url-policy.js';
import type { DeliverWebhookInput, DeliverWebhookResult } from '../../workflows/messages.js';

export interface WebhookDeliveryDeps {
  prisma: PrismaClient;
  logger: Logger;
  webhooks: {
    /** WEBHOOK_ALLOWLIST entries (`host` or `host:port`). */
    allowlist: readonly string[];
    /** Host name resolution at delivery time; default the system resolver. */
    resolve?: HostResolver;
  };
}

export function createWebhookDeliveryActivities({ prisma, logger, webhooks }: WebhookDeliveryDeps) {
  const resolve = webhooks.resolve ?? systemResolver;
  return {
    async deliverWebhook(input: DeliverWebhookInput): Promise<DeliverWebhookResult> {
      const log = logger.child({ taskId: input.taskId, kind: input.kind, attempt: input.attempt });
      const startedAt = performance.now();
      const task = await prisma.task.findUnique({
        where: { id: input.taskId },
        include: { observation: true, account: { select: { webhookSecret: true } } },
      });
      const configured = input.kind === 'postback' ? task?.postbackUrl : task?.pingbackUrl;
      if (!task || !configured) {
        log.warn('no such task or no URL of this kind: nothing to deliver');
        return { outcome: 'refused', httpStatus: null };
      }
      const target = input.kind === 'pingback' ? expandPingbackUrl(configured, task) : configured;
      const verdict = checkWebhookUrl(target, webhooks.allowlist, { maxLength: Infinity });
      let result: AttemptResult;
      const sentAt = performance.now();
      if (!verdict.ok) {
        result = { outcome: 'refused', httpStatus: null, error: `URL refused: ${verdict.reason} (${verdict.detail})` };
      } else {
        const secret = task.account.webhookSecret;
        const body = input.kind === 'postback' ? JSON.stringify(taskGetEnvelope(task, startedAt)) : undefined;
        const headers: Record<string, string> = {
          'User-Agent': WEBHOOK_USER_AGENT,
          [SIGNATURE_HEADER]: signWebhook(body ?? verdict.url.href, secret),
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        };
        result = await sendPinned({
          url: verdict.url, method: body === undefined ? 'GET' : 'POST', headers, body, timeoutMs: input.timeoutMs,
          resolve, allowlisted: verdict.allowlisted, signal: Context.current().cancellationSignal,
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
    },
  };
}
