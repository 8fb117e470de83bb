/**
 * The webhook delivery log and redeliveries (GET /v1/appendix/webhook_deliveries, POST
 * /v1/appendix/webhook_deliveries/{event_id}/redeliver) and a subscription's change events (GET
 * /v1/retail/monitoring/change_events). Thin: the rules are in core/services/webhook-log.ts; each
 * answer is a one-task envelope, free, whose result holds one page (`next_cursor` names the next).
 */
import { Router } from '@koa/router';
import type { Db } from '../../../core/db/db.js';
import { newTaskId } from '../../../core/ids.js';
import type { AccountRateLimits } from '../../../core/rate-limits.js';
import { deliveryLog, redeliverEvent, subscriptionChangeEvents } from '../../../core/services/webhook-log.js';
import type { WebhookLauncher } from '../../../core/temporal/webhook-launcher.js';
import { readRequestFields } from '../../../core/validation/read-fields.js';
import { changeEventsQuery, webhookDeliveriesQuery } from '../../../core/validation/webhook-log.js';
import { RedeliveryLimits } from '../../../core/webhooks/redelivery-limits.js';
import { STATUS } from '../../../core/domain/status-codes.js';
import type { AppState } from '../context.js';
import { envelope, taskObject, type Envelope } from '../envelope/envelope.js';
import { requireAuth } from '../middleware/auth.js';

/** A one-task, free envelope whose result is `row`. */
function single(path: string[], data: Record<string, unknown>, row: unknown, startedAt: number): Envelope {
  return envelope(startedAt, [taskObject({ id: newTaskId(), code: STATUS.OK, startedAt, path, data, result: [row] })]);
}

/** The routes; `deps.webhookLauncher` is required by redeliver (api/server.ts always provides it). */
export function webhookLogRoutes(deps: { db: Db; webhookLauncher?: WebhookLauncher }, rateLimits?: AccountRateLimits): Router<AppState> {
  const router = new Router<AppState>();
  const auth = requireAuth(deps.db, rateLimits);
  const limits = new RedeliveryLimits(deps.db);

  router.get('/v1/appendix/webhook_deliveries', auth, async (ctx) => {
    const { limit, cursor, kind } = readRequestFields(webhookDeliveriesQuery, ctx.query);
    const page = await deliveryLog(deps.db, ctx.state.account!.id, { limit, ...(cursor === undefined ? {} : { before: cursor }), ...(kind ? { kind } : {}) });
    ctx.body = single(['v1', 'appendix', 'webhook_deliveries'], { ...ctx.query, api: 'appendix', function: 'webhook_deliveries' }, page, ctx.state.startedAt);
  });
  router.post('/v1/appendix/webhook_deliveries/:event_id/redeliver', auth, async (ctx) => {
    if (!deps.webhookLauncher) throw new Error('redeliver needs a WebhookLauncher (AppDeps.webhookLauncher)');
    // Like task_get's id: anything that is not one of the account's event ids is 404 (the service checks).
    const eventId = ctx.params.event_id!;
    const started = await redeliverEvent({ db: deps.db, webhooks: deps.webhookLauncher, limits }, ctx.state.account!.id, eventId);
    ctx.body = single(['v1', 'appendix', 'webhook_deliveries', started.event_id, 'redeliver'], { event_id: started.event_id, api: 'appendix', function: 'redeliver' }, started, ctx.state.startedAt);
  });
  router.get('/v1/retail/monitoring/change_events', auth, async (ctx) => {
    const { subscription_id: subscriptionId, limit, cursor } = readRequestFields(changeEventsQuery, ctx.query);
    const page = await subscriptionChangeEvents(deps.db, ctx.state.account!.id, { subscriptionId, limit, ...(cursor ? { before: cursor } : {}) });
    ctx.body = single(['v1', 'retail', 'monitoring', 'change_events'], { ...ctx.query, api: 'retail', function: 'change_events' }, page, ctx.state.startedAt);
  });
  return router;
}
