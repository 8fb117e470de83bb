/**
 * /openapi.json operations of the webhook delivery log, redeliveries and a subscription's change
 * events (api/rest/routes/webhook-log.routes.ts).
 */
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { changeEventsQuery, redeliverParams, webhookDeliveriesQuery } from '../../../../core/validation/webhook-log.js';
import { REDELIVERIES_PER_MINUTE } from '../../../../core/webhooks/redelivery-limits.js';
import { envelopeOf, errorResponse, jsonOk, operation } from '../operations.js';
import { changeEventPage, deliveryPage, redelivery } from '../alert-resources.js';
import { STATUS } from '../../../../core/domain/status-codes.js';

/** Operations of the delivery log and change events. */
export const webhookLogPaths: ZodOpenApiPathsObject = {
  '/v1/appendix/webhook_deliveries': {
    get: operation({
      operationId: 'webhookDeliveries',
      tags: ['appendix'],
      summary: 'Webhook delivery log',
      description: 'Every delivery attempt of the account (postbacks, pingbacks, change events), newest first: event id, kind, URL, attempt, outcome, HTTP status or error, latency and when a failed attempt is retried. Free. Page with `cursor` (the previous page\'s `next_cursor`).',
      auth: 'required',
      query: webhookDeliveriesQuery,
      ok: jsonOk('One task whose result holds one page of attempts.', envelopeOf('WebhookDeliveriesResponse', deliveryPage, [STATUS.OK])),
      responses: { 400: errorResponse([STATUS.INVALID_FIELD], 'A bad limit, kind or cursor; the message names it.') },
    }),
  },
  '/v1/appendix/webhook_deliveries/{event_id}/redeliver': {
    post: operation({
      operationId: 'redeliverWebhook',
      tags: ['appendix'],
      summary: 'Deliver an event again',
      description: `Starts a new delivery of a stored event of the account: the same event id in \`X-Event-Id\` (receivers deduplicate by it), signed anew with the current webhook secret, retried like every delivery; a postback sends the task's task_get envelope as it is now. No body. Free; at most ${REDELIVERIES_PER_MINUTE} redeliveries per minute per account.`,
      auth: 'required',
      path: redeliverParams,
      ok: jsonOk('One task with the redelivery.', envelopeOf('RedeliverResponse', redelivery, [STATUS.OK])),
      responses: {
        400: errorResponse([STATUS.BAD_REQUEST], 'The event has no URL to deliver to (a change event of a subscription without alert_url), or the body is not JSON.'),
        404: errorResponse([STATUS.NOT_FOUND], 'Not an event of the account.'),
        429: errorResponse([STATUS.RATE_LIMITED], `Per-account requests per minute, or more than ${REDELIVERIES_PER_MINUTE} redeliveries per minute.`),
      },
    }),
  },
  '/v1/retail/monitoring/change_events': {
    get: operation({
      operationId: 'monitoringChangeEvents',
      tags: ['monitoring'],
      summary: 'Change events of a subscription',
      description: 'The events its alert rules recorded, newest first, each with the body POSTed to alert_url. Free. Page with `cursor`.',
      auth: 'required',
      query: changeEventsQuery,
      ok: jsonOk('One task whose result holds one page of change events.', envelopeOf('ChangeEventsResponse', changeEventPage, [STATUS.OK])),
      responses: {
        400: errorResponse([STATUS.INVALID_FIELD], 'A bad subscription_id, limit or cursor; the message names it.'),
        404: errorResponse([STATUS.NOT_FOUND], 'Not a subscription of the account.'),
      },
    }),
  },
};
