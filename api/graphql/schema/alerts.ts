/**
 * Change alerts and the webhook delivery log over GraphQL, on the same core services as REST
 * (core/alerts.ts, core/services/webhook-log.ts): a subscription's `alertUrl`, `alerts` (its rules
 * with their state) and `changeEvents` (newest first), both batched for a whole page of
 * subscriptions (one query each, whatever their number);
 * `webhookDeliveries`, the caller's delivery attempts (newest first, `kind` filter); and
 * `redeliverWebhook`, a new delivery of a stored event (rate limited: 40202; 40400 for an event
 * that is not the caller's). Both lists page forward only (`first` / `after`).
 */
import DataLoader from 'dataloader';
import { alertRulesOf, type AlertRuleObject } from '../../../core/alerts.js';
import type { ChangeSide } from '../../../core/domain/alert-rules.js';
import { WEBHOOK_KINDS, type WebhookKind } from '../../../core/domain/webhook-messages.js';
import { DomainError } from '../../../core/errors.js';
import { changeEventsPage, deliveryLog, redeliverEvent, type RedeliveryObject } from '../../../core/services/webhook-log.js';
import { decodeChangeCursor, decodeDeliveryCursor, encodeChangeCursor, encodeDeliveryCursor } from '../../../core/validation/webhook-log.js';
import { listChangeEvents, type ChangeEventObject, type ChangeEventPage, type ChangeEventRows, type DeliveryAttemptObject } from '../../../core/webhook-events.js';
import { builder, connectionComplexity, CONNECTION_SIZE } from '../builder.js';
import { requireAccount, type GraphQLContext } from '../context.js';
import { PriceRef } from './product.js';
import { AlertType, SubscriptionRef } from './subscription.js';

export const WebhookKindEnum = builder.enumType('WebhookKind', {
  description: '`postback` and `pingback` of task_post tasks; `change`: an alert rule fired.',
  values: WEBHOOK_KINDS as readonly WebhookKind[],
});

const WebhookOutcome = builder.enumType('WebhookOutcome', {
  description: '`delivered` (2xx), `failed` (retried while retries remain), `refused` (not retried).',
  values: ['delivered', 'failed', 'refused'] as const,
});

const SellerRef = builder.objectRef<NonNullable<ChangeSide['buy_box']>>('BuyBoxSeller').implement({
  description: 'The featured offer\'s seller.',
  fields: (t) => ({
    sellerName: t.exposeString('seller_name', { nullable: true }),
    sellerId: t.exposeString('seller_id', { nullable: true }),
  }),
});

const ChangeSideRef = builder.objectRef<ChangeSide>('ChangeSide').implement({
  description: 'An alert rule\'s field at one observation: only the field of the rule\'s type is set.',
  fields: (t) => ({
    observedAt: t.field({ type: 'DateTime', resolve: (s) => new Date(s.observed_at) }),
    price: t.field({ type: PriceRef, nullable: true, resolve: (s) => s.price ?? null }),
    bsrRank: t.int({ nullable: true, resolve: (s) => s.bsr_rank ?? null }),
    availability: t.string({ nullable: true, resolve: (s) => s.availability ?? null }),
    buyBox: t.field({ type: SellerRef, nullable: true, resolve: (s) => s.buy_box ?? null }),
    contentHash: t.string({ nullable: true, resolve: (s) => s.content_hash ?? null }),
    organicRank: t.int({ nullable: true, description: 'Rank rules: the tracked ASIN\'s organic rank across the pages read; null when absent (or not a rank rule).', resolve: (s) => s.organic_rank ?? null }),
    sponsored: t.boolean({ nullable: true, description: 'Rank rules: whether the tracked ASIN held a sponsored slot.', resolve: (s) => s.sponsored ?? null }),
  }),
});

const AlertRuleRef = builder.objectRef<AlertRuleObject>('AlertRule').implement({
  description: 'An alert rule of a subscription and its state.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    type: t.field({ type: AlertType, resolve: (r) => r.type }),
    value: t.exposeFloat('value', { nullable: true, description: 'Threshold or percent; null for the change types.' }),
    asin: t.string({ nullable: true, description: 'Rank rules of keyword subscriptions: the tracked ASIN the rule judges.', resolve: (r) => r.asin ?? null }),
    armed: t.exposeBoolean('armed', { description: 'False after the rule fired, until an observation outside its condition re-arms it.' }),
    lastKnown: t.field({ type: ChangeSideRef, nullable: true, resolve: (r) => r.last_known }),
    triggeredCount: t.exposeInt('triggered_count'),
    lastTriggeredAt: t.field({ type: 'DateTime', nullable: true, resolve: (r) => (r.last_triggered_at ? new Date(r.last_triggered_at) : null) }),
  }),
});

const ChangeEventRef = builder.objectRef<ChangeEventObject>('ChangeEvent').implement({
  description: 'A `change` event: an alert rule fired (the body POSTed to alert_url, `X-Event-Id` its id).',
  fields: (t) => ({
    eventId: t.id({ resolve: (e) => e.event.event_id }),
    ruleId: t.int({ resolve: (e) => e.event.rule.id }),
    ruleType: t.field({ type: AlertType, resolve: (e) => e.event.rule.type }),
    ruleValue: t.float({ nullable: true, resolve: (e) => e.event.rule.value }),
    before: t.field({ type: ChangeSideRef, resolve: (e) => e.event.before }),
    after: t.field({ type: ChangeSideRef, resolve: (e) => e.event.after }),
    observedAt: t.field({ type: 'DateTime', resolve: (e) => new Date(e.event.observed_at) }),
    url: t.exposeString('url', { nullable: true, description: 'Where it was to be delivered; null when the subscription had no alert_url.' }),
    createdAt: t.field({ type: 'DateTime', resolve: (e) => new Date(e.created_at) }),
  }),
});

const DeliveryAttemptRef = builder.objectRef<DeliveryAttemptObject>('WebhookDeliveryAttempt').implement({
  description: 'One webhook delivery attempt (GET /v1/appendix/webhook_deliveries).',
  fields: (t) => ({
    id: t.exposeID('id'),
    eventId: t.exposeID('event_id', { nullable: true, description: 'The event delivered (`X-Event-Id`); what redeliverWebhook takes.' }),
    kind: t.field({ type: WebhookKindEnum, resolve: (d) => d.kind }),
    url: t.exposeString('url'),
    attempt: t.exposeInt('attempt'),
    redelivery: t.exposeBoolean('redelivery'),
    outcome: t.field({ type: WebhookOutcome, resolve: (d) => d.outcome }),
    httpStatus: t.exposeInt('http_status', { nullable: true }),
    error: t.exposeString('error', { nullable: true }),
    latencyMs: t.exposeInt('latency_ms'),
    nextRetryAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => (d.next_retry_at ? new Date(d.next_retry_at) : null) }),
    taskId: t.exposeID('task_id', { nullable: true }),
    subscriptionId: t.exposeInt('subscription_id', { nullable: true }),
    createdAt: t.field({ type: 'DateTime', resolve: (d) => new Date(d.created_at) }),
  }),
});

const RedeliveryRef = builder.objectRef<RedeliveryObject>('Redelivery').implement({
  description: 'A new delivery of the event has started (signed anew, same event id).',
  fields: (t) => ({
    eventId: t.exposeID('event_id'),
    kind: t.field({ type: WebhookKindEnum, resolve: (r) => r.kind }),
    url: t.exposeString('url'),
  }),
});

/** Per request: the rules of the subscriptions it resolves, one query per tick. */
const ruleLoaders = new WeakMap<GraphQLContext, DataLoader<number, AlertRuleObject[]>>();
const rulesLoader = (ctx: GraphQLContext) => {
  let loader = ruleLoaders.get(ctx);
  if (!loader) {
    loader = new DataLoader(async (ids) => {
      const rules = await alertRulesOf(ctx.db.prisma, [...ids]);
      return ids.map((id) => rules.get(id) ?? []);
    });
    ruleLoaders.set(ctx, loader);
  }
  return loader;
};

/** Per request: pages of change events of the subscriptions it resolves, one query per page shape and tick. */
const eventLoaders = new WeakMap<GraphQLContext, DataLoader<{ subscriptionId: number; page: ChangeEventPage }, ChangeEventRows, string>>();
const shapeOf = (page: ChangeEventPage) => `${page.limit}|${page.before ? `${page.before.at.getTime()}:${page.before.id}` : ''}`;
const eventsLoader = (ctx: GraphQLContext) => {
  let loader = eventLoaders.get(ctx);
  if (!loader) {
    loader = new DataLoader(async (keys) => {
      const groups = new Map<string, { page: ChangeEventPage; ids: number[] }>();
      for (const { subscriptionId, page } of keys) {
        const group = groups.get(shapeOf(page)) ?? { page, ids: [] };
        group.ids.push(subscriptionId);
        groups.set(shapeOf(page), group);
      }
      const pages = new Map<string, ChangeEventRows>();
      for (const [shape, { page, ids }] of groups) {
        for (const [id, rows] of await listChangeEvents(ctx.db, ids, page)) pages.set(`${id}|${shape}`, rows);
      }
      return keys.map(({ subscriptionId, page }) => pages.get(`${subscriptionId}|${shapeOf(page)}`)!);
    }, { cacheKeyFn: ({ subscriptionId, page }) => `${subscriptionId}|${shapeOf(page)}` });
    eventLoaders.set(ctx, loader);
  }
  return loader;
};

/** The page size of a forward connection; `last` / `before` are refused with 40501 (these lists page forward only). */
function forwardPage(args: { first?: number | null; last?: number | null; before?: string | null }): number {
  if (args.last != null) throw DomainError.invalidField('last');
  if (args.before != null) throw DomainError.invalidField('before');
  const first = args.first ?? CONNECTION_SIZE.default;
  if (first < 0 || first > CONNECTION_SIZE.max) throw DomainError.invalidField('first');
  return first;
}

/** A forward connection of `rows` with their cursors. */
function connectionOf<T>(rows: T[], cursorOf: (row: T) => string, more: boolean, after: string | null | undefined) {
  const edges = rows.map((node) => ({ cursor: cursorOf(node), node }));
  return { edges, pageInfo: { hasNextPage: more, hasPreviousPage: Boolean(after), startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null } };
}

builder.prismaObjectFields(SubscriptionRef, (t) => ({
  alertUrl: t.exposeString('alertUrl', { nullable: true, description: 'Where `change` events are POSTed; null: recorded and listed only.' }),
  alerts: t.field({
    type: [AlertRuleRef],
    description: 'The alert rules, in order, with their state.',
    resolve: (s, _args, ctx) => rulesLoader(ctx).load(s.id),
  }),
  changeEvents: t.connection({
    type: ChangeEventRef,
    description: 'Change events of this subscription\'s rules, newest first (forward only).',
    complexity: connectionComplexity,
    resolve: async (s, args, ctx) => {
      const limit = forwardPage(args);
      const before = args.after ? decodeChangeCursor(args.after) : undefined;
      if (before === null) throw DomainError.invalidField('after');
      // The subscription was loaded scoped to the caller: its events are the caller's.
      const page = changeEventsPage(await eventsLoader(ctx).load({ subscriptionId: s.id, page: { limit, ...(before ? { before } : {}) } }));
      const rows = page.change_events;
      return connectionOf(rows, (e) => encodeChangeCursor({ at: new Date(e.created_at), id: e.event.event_id }), page.next_cursor !== null, args.after);
    },
  }),
}));

builder.queryFields((t) => ({
  webhookDeliveries: t.connection({
    type: DeliveryAttemptRef,
    description: 'The caller\'s webhook delivery attempts, newest first (GET /v1/appendix/webhook_deliveries; forward only).',
    args: { kind: t.arg({ type: WebhookKindEnum }) },
    complexity: connectionComplexity,
    resolve: async (_root, args, ctx) => {
      const limit = forwardPage(args);
      const before = args.after ? decodeDeliveryCursor(args.after) : undefined;
      if (before === null) throw DomainError.invalidField('after');
      const page = await deliveryLog(ctx.db, requireAccount(ctx).id, { limit, ...(before !== undefined ? { before } : {}), ...(args.kind ? { kind: args.kind } : {}) });
      return connectionOf(page.deliveries, (d) => encodeDeliveryCursor(d.id), page.next_cursor !== null, args.after);
    },
  }),
}));

builder.mutationFields((t) => ({
  redeliverWebhook: t.field({
    type: RedeliveryRef,
    description: 'POST /v1/appendix/webhook_deliveries/{event_id}/redeliver: a new delivery of one of the caller\'s events.',
    args: { eventId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const account = requireAccount(ctx);
      if (!ctx.deps.webhookLauncher) throw new Error('redeliverWebhook needs a WebhookLauncher (AppDeps.webhookLauncher)');
      return redeliverEvent({ db: ctx.db, webhooks: ctx.deps.webhookLauncher, limits: ctx.redeliveryLimits }, account.id, String(args.eventId));
    },
  }),
}));
