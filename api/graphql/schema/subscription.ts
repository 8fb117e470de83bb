/**
 * Monitoring subscriptions of the caller: `subscriptions` (tag, status; each with its latest
 * delivered observation and the connection of its delivered observations), and the
 * `addSubscriptions` / `deleteSubscriptions` mutations, which are the REST monitoring/add and
 * monitoring/delete services themselves (free; 10,000 per account; 40400 for a subscription that is
 * not the caller's).
 *
 * Latest observations are batched (one query for a whole page, like monitoring/list); the
 * observation connection lists only this subscription's deliveries, which the account paid for —
 * a product's full history stays behind the charged `productHistory`.
 */
import { resolveCursorConnection } from '@pothos/plugin-relay';
import type { Prisma } from '../../../core/db/prisma.js';
import { DomainError } from '../../../core/errors.js';
import type { TaskOutcome } from '../../../core/domain/outcomes.js';
import { readRequestFields } from '../../../core/validation/read-fields.js';
import { subscriptionId } from '../../../core/validation/fields.js';
import { subscriptionListFilter } from '../../../core/validation/requests.js';
import { addMonitoring, deleteMonitoring, type MonitoringDeps, type SubscriptionObject } from '../../services/monitoring.js';
import { builder, connectionComplexity, CONNECTION_SIZE, type RootFieldPolicy } from '../builder.js';
import type { CursorPolicy } from '../cursors.js';
import { metered, requireAccount, type GraphQLContext } from '../context.js';
import { decodeDeliveryCursor, encodeDeliveryCursor, type ObservationRow } from '../deliveries.js';
import { batchPayload, filterArgs, restElement, TaskOutcomeRef } from './outcome.js';
import { ObservationRef, ProductRef } from './product.js';
import { STATUS } from '../../../core/domain/status-codes.js';
import { ALERT_TYPES } from '../../../core/domain/alert-rules.js';

export const Frequency = builder.enumType('Frequency', { values: ['hourly', 'every_6h', 'daily'] as const });

export const SubscriptionStatus = builder.enumType('SubscriptionStatus', {
  description: '`paused_balance` while the balance cannot pay a delivery; resumes on top-up.',
  values: ['active', 'paused_balance'] as const,
});

// Named MonitoringSubscription: a type named `Subscription` would be taken for the root
// subscription type by every tool that reads schema.graphql without a `schema { }` block.
export const SubscriptionRef = builder.prismaObject('Subscription', {
  name: 'MonitoringSubscription',
  description: 'A monitoring subscription of the caller (api-spec.md "Subscription").',
  fields: (t) => ({
    id: t.exposeInt('id'),
    kind: t.exposeString('kind', { description: '`product` (reads `asin`) or `search` (reads the results pages 1..`pages` of `keyword`).' }),
    asin: t.exposeString('asin', { nullable: true, description: 'The product; null for a keyword subscription.' }),
    keyword: t.exposeString('keyword', { nullable: true, description: 'Keyword subscriptions: the keyword.' }),
    pages: t.exposeInt('pages', { nullable: true, description: 'Keyword subscriptions: results pages read per run.' }),
    trackAsins: t.exposeStringList('trackAsins', { description: 'Keyword subscriptions: the ASINs the rank rules judge.' }),
    marketplace: t.exposeString('marketplace'),
    frequency: t.field({ type: Frequency, resolve: (s) => s.frequency as (typeof Frequency)['$inferType'] }),
    tag: t.exposeString('tag', { nullable: true }),
    externalUserId: t.exposeString('externalUserId', { nullable: true }),
    status: t.field({ type: SubscriptionStatus, resolve: (s) => s.status as (typeof SubscriptionStatus)['$inferType'] }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    latestObservation: t.field({
      type: ProductRef,
      nullable: true,
      description: 'The latest delivered observation; null before the first delivery.',
      select: { latestObservationId: true },
      resolve: async (s, _args, ctx) => {
        if (s.latestObservationId === null) return null;
        const row = await ctx.loaders.observation.load(s.latestObservationId);
        return row ? row.product : null;
      },
    }),
    observations: t.connection({
      type: ObservationRef,
      description: 'Observations delivered to this subscription, newest first.',
      complexity: connectionComplexity,
      resolve: (s, args, ctx) => {
        if (args.after && args.before) throw DomainError.invalidField('before');
        return resolveCursorConnection<Promise<ObservationRow[]>>(
          { args, toCursor: encodeDeliveryCursor, defaultSize: CONNECTION_SIZE.default, maxSize: CONNECTION_SIZE.max },
          ({ after, before, limit, inverted }) => ctx.loaders.deliveries.load({
            subscriptionId: s.id,
            after: decodeDeliveryCursor(after, 'after'),
            before: decodeDeliveryCursor(before, 'before'),
            limit,
            inverted,
          }),
        );
      },
    }),
  }),
});

export const SubscriptionKind = builder.enumType('SubscriptionKind', {
  description: '`product`: one ASIN; `search`: the results pages of a keyword (search-page-contract.md "API", Monitoring).',
  values: ['product', 'search'] as const,
});

/** The caller's subscriptions matching the filters; a bad `tag` → 40501 (monitoring/list's rule). */
function subscriptionWhere(ctx: GraphQLContext, args: { tag?: string | null; status?: string | null; kind?: string | null }): Prisma.SubscriptionWhereInput {
  const { tag } = readRequestFields(subscriptionListFilter, filterArgs({ tag: args.tag }));
  return {
    accountId: requireAccount(ctx).id,
    ...(tag !== undefined ? { tag } : {}),
    ...(args.status ? { status: args.status } : {}),
    ...(args.kind ? { kind: args.kind } : {}),
  };
}

builder.queryFields((t) => ({
  subscriptions: t.prismaConnection({
    type: 'Subscription',
    cursor: 'id',
    description: 'The caller\'s subscriptions, oldest first (as monitoring/list).',
    args: {
      tag: t.arg.string(),
      status: t.arg({ type: SubscriptionStatus }),
      kind: t.arg({ type: SubscriptionKind, description: 'Only product or only keyword subscriptions.' }),
    },
    complexity: connectionComplexity,
    extensions: { cursorValue: (id) => subscriptionId.safeParse(id).success } satisfies CursorPolicy,
    resolve: (query, _root, args, ctx) => ctx.db.prisma.subscription.findMany({ ...query, where: subscriptionWhere(ctx, args), orderBy: { id: 'asc' } }),
    totalCount: (_connection, args, ctx) => ctx.db.prisma.subscription.count({ where: subscriptionWhere(ctx, args) }),
  }),
}));

export const AlertType = builder.enumType('AlertType', {
  description: 'What an alert rule watches (monitoring/add `alerts[].type`).',
  values: ALERT_TYPES,
});

const AlertRuleInput = builder.inputType('AlertRuleInput', {
  description: 'One alert rule (monitoring/add `alerts[]`): `value` is the threshold or percent of the rule types that take one.',
  fields: (t) => ({
    type: t.field({ type: AlertType, required: true }),
    value: t.float(),
    asin: t.string({ description: 'Rank rules of keyword subscriptions: the tracked ASIN the rule judges.' }),
  }),
});

const SubscriptionInput = builder.inputType('SubscriptionInput', {
  description: 'One monitoring/add element: `asin`, or `keyword` (with `pages`, `trackAsins`); the same asin (keyword) + marketplace again updates frequency and tag (and alerts and alertUrl when given).',
  fields: (t) => ({
    asin: t.string(),
    keyword: t.string({ description: 'A keyword subscription: the results pages 1..`pages` of this keyword are read each run.' }),
    pages: t.int({ description: 'Keyword subscriptions: results pages per run, 1-5.' }),
    trackAsins: t.stringList({ description: 'Keyword subscriptions: ASINs the rank rules judge, 0-50.' }),
    marketplace: t.string({ required: true }),
    frequency: t.field({ type: Frequency, required: true }),
    tag: t.string(),
    externalUserId: t.string({ description: 'Opaque id of your end user; no personal data (e-mail addresses are refused).' }),
    alerts: t.field({ type: [AlertRuleInput], description: 'Change alerts, replacing the subscription\'s (at most 10); absent: unchanged.' }),
    alertUrl: t.string({ description: 'Where change events are POSTed (postback_url\'s URL rules); absent: unchanged; null: nowhere.' }),
  }),
});

const SubscriptionSelector = builder.inputType('SubscriptionSelector', {
  description: 'One monitoring/delete element: `id`, or `asin` (or `keyword`) plus `marketplace`.',
  fields: (t) => ({
    id: t.int(),
    asin: t.string(),
    keyword: t.string(),
    marketplace: t.string(),
  }),
});

const DeletedSubscriptionRef = builder.objectRef<SubscriptionObject>('DeletedSubscription').implement({
  description: 'A subscription as it was when deleted; its delivered observations stay in history.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    asin: t.string({ nullable: true, resolve: (s) => ('asin' in s ? s.asin : null) }),
    keyword: t.string({ nullable: true, resolve: (s) => ('keyword' in s ? s.keyword : null) }),
    marketplace: t.exposeString('marketplace'),
    frequency: t.field({ type: Frequency, resolve: (s) => s.frequency }),
    tag: t.exposeString('tag', { nullable: true }),
    externalUserId: t.exposeString('external_user_id', { nullable: true }),
    status: t.field({ type: SubscriptionStatus, resolve: (s) => s.status }),
    createdAt: t.field({ type: 'DateTime', resolve: (s) => new Date(s.created_at) }),
  }),
});

/** The Subscription of a successful monitoring task (its `result[0]`), else null. */
function subscriptionOf(outcome: TaskOutcome): SubscriptionObject | null {
  return outcome.code === STATUS.OK ? ((outcome.result?.[0] as SubscriptionObject | undefined) ?? null) : null;
}

const AddSubscriptionResult = builder.objectRef<TaskOutcome>('AddSubscriptionResult').implement({
  description: 'One monitoring/add element: 20000 with the subscription, or its task-level code.',
  interfaces: [TaskOutcomeRef],
  fields: (t) => ({
    subscription: t.field({
      type: SubscriptionRef,
      nullable: true,
      resolve: (outcome, _args, ctx) => {
        const added = subscriptionOf(outcome);
        return added ? ctx.loaders.subscription.load(added.id) : null;
      },
    }),
  }),
});

const DeleteSubscriptionResult = builder.objectRef<TaskOutcome>('DeleteSubscriptionResult').implement({
  description: 'One monitoring/delete element: 20000 with the deleted subscription, 40400 when the caller has no such subscription.',
  interfaces: [TaskOutcomeRef],
  fields: (t) => ({
    subscription: t.field({ type: DeletedSubscriptionRef, nullable: true, resolve: subscriptionOf }),
  }),
});

/** The monitoring services' dependencies; like the REST routes, they need a monitor launcher. */
function monitoringDeps(ctx: GraphQLContext): MonitoringDeps {
  if (!ctx.deps.monitors) throw new Error('the monitoring mutations need a MonitorLauncher (AppDeps.monitors)');
  return { ...ctx.deps, monitors: ctx.deps.monitors };
}

builder.mutationFields((t) => ({
  addSubscriptions: t.field({
    type: batchPayload('AddSubscriptionsPayload', AddSubscriptionResult),
    description: 'POST /v1/retail/monitoring/add: 1 to 100 subscriptions; free, deliveries are charged.',
    args: { subscriptions: t.arg({ type: [SubscriptionInput], required: true }) },
    extensions: { rateLimitTasks: 'subscriptions' } satisfies RootFieldPolicy,
    resolve: async (_root, args, ctx) => {
      const account = requireAccount(ctx);
      const body = args.subscriptions.map((s) => restElement(s, { externalUserId: 'external_user_id', alertUrl: 'alert_url', trackAsins: 'track_asins' }));
      return metered(ctx, await addMonitoring(monitoringDeps(ctx), account, body));
    },
  }),
  deleteSubscriptions: t.field({
    type: batchPayload('DeleteSubscriptionsPayload', DeleteSubscriptionResult),
    description: 'POST /v1/retail/monitoring/delete: 1 to 100 subscriptions by id or asin + marketplace; free.',
    args: { subscriptions: t.arg({ type: [SubscriptionSelector], required: true }) },
    extensions: { rateLimitTasks: 'subscriptions' } satisfies RootFieldPolicy,
    resolve: async (_root, args, ctx) => {
      const account = requireAccount(ctx);
      const body = args.subscriptions.map((s) => restElement(s));
      return metered(ctx, await deleteMonitoring(monitoringDeps(ctx), account, body));
    },
  }),
}));
