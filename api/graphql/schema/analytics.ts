/**
 * History analytics of a product: `product(asin, marketplace) { stats(window) series(window, bucket)
 * changes(window) }`, the same results as POST /v1/retail/product/stats (core/product-stats.ts),
 * validated by the same rules (core/validation/analytics.ts), so a dashboard draws a chart and its
 * annotations with one query.
 *
 * Charging: a `product` field is one history element (the plan's `history` rate), whatever it
 * selects; every window it asks for is checked before it is charged, so a refused field costs
 * nothing. An operation's `product` fields are charged together in one statement and their reads
 * are batched (analytics-loaders.ts): the statements do not grow with the number of products.
 * A read that fails refunds its field.
 */
import type { GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import type { AuthAccount } from '../../../core/authentication.js';
import { fromMicros, toMicros } from '../../../core/domain/money.js';
import { readReservationKey, refundReservation } from '../../../core/reservations.js';
import { newTaskId } from '../../../core/ids.js';
import type { ProductChange, ProductStats, StatsPoint, StatsQuery, ValueStats, PriceStats } from '../../../core/product-stats.js';
import { resolveStatsWindow, statsTask, statsWindow, STATS_BUCKETS, type StatsBucket } from '../../../core/validation/analytics.js';
import { readTaskFields } from '../../../core/validation/read-fields.js';
import { analyticsLoaders } from '../analytics-loaders.js';
import { builder, IN_MEMORY_LIST, type RootFieldPolicy } from '../builder.js';
import { requireAccount, type GraphQLContext } from '../context.js';
import { Kind, getArgumentValues, type GraphQLObjectType } from '../graphql-js.js';
import { filterArgs } from './outcome.js';

/** A charged `product` field: the product, its charge, and whether a failed read gave it back. */
interface ProductAnalytics {
  asin: string;
  marketplace: string;
  cost: number;
  taskId: string;
  account: AuthAccount;
  refunded: boolean;
}

type WindowArg = { days?: number | null; from?: string | null; to?: string | null } | null | undefined;

const StatsWindowInput = builder.inputType('StatsWindow', {
  description: 'A window of history: `days` back from `to` (default now; 90 days when neither `days` nor `from` is given), or `from` / `to` '
    + '(a UTC day YYYY-MM-DD, or an ISO 8601 date-time with `Z` or an offset; `from` inclusive, `to` exclusive, a day `to` includes that day). '
    + 'Same rules as POST /v1/retail/product/stats; errors name `days`, `from`, `to`.',
  fields: (t) => ({
    days: t.int({ description: '1 to 3650; not together with `from`.' }),
    from: t.string(),
    to: t.string(),
  }),
});

const StatsBucketEnum = builder.enumType('StatsBucket', {
  description: 'One point per UTC hour or day: the bucket\'s last observation; `at` is the bucket\'s start.',
  values: { HOUR: { value: 'hour' }, DAY: { value: 'day' } } as const,
});

const ChangeFieldEnum = builder.enumType('ChangeField', {
  values: { PRICE: { value: 'price' }, BSR_RANK: { value: 'bsr_rank' } } as const,
});

const PriceStatsRef = builder.objectRef<PriceStats>('PriceStats').implement({
  description: 'Price over the window, in one currency: that of the newest priced observation (other currencies are left out).',
  fields: (t) => ({
    currency: t.exposeString('currency', { description: 'ISO 4217.' }),
    min: t.exposeFloat('min'),
    max: t.exposeFloat('max'),
    avg: t.exposeFloat('avg', { description: 'Mean of the observations, 4 decimals.' }),
    last: t.exposeFloat('last', { description: 'The newest price.' }),
    minAt: t.field({ type: 'DateTime', description: 'The newest observation at the minimum.', resolve: (s) => new Date(s.min_at) }),
    maxAt: t.field({ type: 'DateTime', description: 'The newest observation at the maximum.', resolve: (s) => new Date(s.max_at) }),
    lastAt: t.field({ type: 'DateTime', resolve: (s) => new Date(s.last_at) }),
  }),
});

const RankStatsRef = builder.objectRef<ValueStats>('RankStats').implement({
  description: 'Best Sellers Rank (main category) over the window.',
  fields: (t) => ({
    min: t.exposeInt('min'),
    max: t.exposeInt('max'),
    avg: t.exposeFloat('avg', { description: 'Mean of the observations, 2 decimals.' }),
    last: t.exposeInt('last', { description: 'The newest rank.' }),
    minAt: t.field({ type: 'DateTime', description: 'The newest observation at the minimum.', resolve: (s) => new Date(s.min_at) }),
    maxAt: t.field({ type: 'DateTime', description: 'The newest observation at the maximum.', resolve: (s) => new Date(s.max_at) }),
    lastAt: t.field({ type: 'DateTime', resolve: (s) => new Date(s.last_at) }),
  }),
});

const ProductStatsRef = builder.objectRef<ProductStats>('ProductStats').implement({
  description: 'Statistics of a product over a window (REST stats result without `points`).',
  fields: (t) => ({
    from: t.field({ type: 'DateTime', resolve: (s) => new Date(s.from) }),
    to: t.field({ type: 'DateTime', description: 'Exclusive.', resolve: (s) => new Date(s.to) }),
    observations: t.exposeInt('observations', { description: 'Observations in the window, whatever their status.' }),
    price: t.field({ type: PriceStatsRef, nullable: true, description: 'Null when no observation has a price.', resolve: (s) => s.price }),
    bsr: t.field({ type: RankStatsRef, nullable: true, description: 'Null when no observation has a rank.', resolve: (s) => s.bsr }),
  }),
});

const StatsPointRef = builder.objectRef<StatsPoint>('StatsPoint').implement({
  fields: (t) => ({
    at: t.field({ type: 'DateTime', description: 'The observation\'s time, or the bucket\'s start.', resolve: (p) => new Date(p.at) }),
    price: t.exposeFloat('price', { nullable: true, description: 'In the series\' currency; null without a price or in another currency.' }),
    bsrRank: t.exposeInt('bsr_rank', { nullable: true }),
  }),
});

const ProductSeriesRef = builder.objectRef<ProductStats & { bucket: StatsBucket | null }>('ProductSeries').implement({
  description: 'The time series of a product over a window (REST stats `points`): at most 10,000 points, the newest, oldest first.',
  fields: (t) => ({
    from: t.field({ type: 'DateTime', resolve: (s) => new Date(s.from) }),
    to: t.field({ type: 'DateTime', resolve: (s) => new Date(s.to) }),
    bucket: t.field({ type: StatsBucketEnum, nullable: true, resolve: (s) => s.bucket }),
    currency: t.string({ nullable: true, description: 'Currency of the prices (as PriceStats.currency).', resolve: (s) => s.price?.currency ?? null }),
    points: t.field({ type: [StatsPointRef], complexity: IN_MEMORY_LIST, resolve: (s) => s.points }),
  }),
});

const ProductChangeRef = builder.objectRef<ProductChange>('ProductChange').implement({
  description: 'A change of the price or the BSR rank between two consecutive observations of the window.',
  fields: (t) => ({
    field: t.field({ type: ChangeFieldEnum, resolve: (c) => c.field }),
    observedAt: t.field({ type: 'DateTime', resolve: (c) => new Date(c.observed_at) }),
    previousObservedAt: t.field({ type: 'DateTime', resolve: (c) => new Date(c.previous_observed_at) }),
    before: t.exposeFloat('before', { nullable: true }),
    after: t.exposeFloat('after', { nullable: true }),
    currency: t.exposeString('currency', { nullable: true, description: 'Price changes: the currency after (before when the price disappeared).' }),
    delta: t.exposeFloat('delta', { nullable: true, description: 'after − before; null when either is null or the currencies differ.' }),
    deltaPercent: t.exposeFloat('delta_percent', { nullable: true, description: '100 × delta / before, 2 decimals.' }),
  }),
});

/** The window of a field's `window` argument, checked (40501 `days` / `from` / `to`). */
function windowOf(window: WindowArg, now: Date): { from: Date; to: Date } {
  const fields = readTaskFields(statsWindow, filterArgs({ ...(window ?? {}) }));
  return resolveStatsWindow(fields, now);
}

/** The `window` arguments of the analytics fields selected under a `product` field (fragments included). */
function selectedWindows(info: GraphQLResolveInfo): WindowArg[] {
  const fields = (info.schema.getType('ProductAnalytics') as GraphQLObjectType).getFields();
  const found: WindowArg[] = [];
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode | undefined) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        const field = fields[selection.name.value];
        if (field?.args.some((a) => a.name === 'window')) found.push(getArgumentValues(field, selection, info.variableValues).window as WindowArg);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet);
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        visit(info.fragments[selection.name.value]?.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet);
  return found;
}

/** Runs a read of a charged field; a failure gives the field's charge back once, then fails the field. */
async function read<T>(ctx: GraphQLContext, product: ProductAnalytics, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!product.refunded) {
      product.refunded = true;
      analyticsLoaders(ctx, product.account).failed.add(product.taskId);
      // A refund that fails leaves the reservation open: the reconciler refunds it.
      await refundReservation(ctx.db, { runKey: readReservationKey(product.taskId), note: 'graphql product failed' })
        .catch((err: unknown) => ctx.deps.logger.error({ err, taskId: product.taskId }, 'could not refund a failed product read; the reconciler will'));
      ctx.meter.cost = fromMicros(toMicros(ctx.meter.cost) - toMicros(product.cost));
    }
    throw error;
  }
}

function query(ctx: GraphQLContext, product: ProductAnalytics, window: WindowArg, points: StatsQuery['points']): StatsQuery {
  return { asin: product.asin, marketplace: product.marketplace, ...windowOf(window, analyticsLoaders(ctx, product.account).now), points };
}

const ProductAnalyticsRef = builder.objectRef<ProductAnalytics>('ProductAnalytics').implement({
  description: 'History analytics of one product (charged once per `product` field).',
  fields: (t) => ({
    asin: t.exposeString('asin'),
    marketplace: t.exposeString('marketplace', { description: 'The marketplace code (aliases resolved).' }),
    cost: t.exposeFloat('cost', { description: 'USD charged for this field: one history element.' }),
    stats: t.field({
      type: ProductStatsRef,
      args: { window: t.arg({ type: StatsWindowInput }) },
      description: 'Min / max / average / last of price and BSR rank over the window (default 90 days).',
      resolve: (p, args, ctx) => read(ctx, p, () => analyticsLoaders(ctx, p.account).stats.load(query(ctx, p, args.window, 'none'))),
    }),
    series: t.field({
      type: ProductSeriesRef,
      args: { window: t.arg({ type: StatsWindowInput }), bucket: t.arg({ type: StatsBucketEnum }) },
      description: 'The time series: one point per observation, or per hour / day (the bucket\'s last observation).',
      resolve: async (p, args, ctx) => {
        const bucket = args.bucket ?? null;
        const stats = await read(ctx, p, () => analyticsLoaders(ctx, p.account).stats.load(query(ctx, p, args.window, bucket ?? 'raw')));
        return { ...stats, bucket };
      },
    }),
    changes: t.field({
      type: [ProductChangeRef],
      complexity: IN_MEMORY_LIST,
      args: { window: t.arg({ type: StatsWindowInput }) },
      description: 'Price and BSR-rank changes between consecutive observations of the window, oldest first (at most 10,000, the newest).',
      resolve: (p, args, ctx) => read(ctx, p, () => analyticsLoaders(ctx, p.account).changes.load(query(ctx, p, args.window, 'none'))),
    }),
  }),
});

const productKey = statsTask.pick({ asin: true, marketplace: true });

builder.queryFields((t) => ({
  product: t.field({
    type: ProductAnalyticsRef,
    // Nullable: one refused product (40200, 40501, …) leaves the operation's other products answered.
    nullable: true,
    description: 'History analytics of a product: statistics, series and changes over windows, the results of POST /v1/retail/product/stats. '
      + 'Charged as one history element at the plan\'s `history` rate per `product` field (40200 when the balance cannot cover it), '
      + `after every window it selects is checked. Buckets: ${STATS_BUCKETS.join(', ')}. Refused over GET.`,
    args: {
      asin: t.arg.string({ required: true }),
      marketplace: t.arg.string({ required: true }),
    },
    extensions: { rateLimitTasks: 1, charged: true } satisfies RootFieldPolicy,
    complexity: { field: 10, multiplier: 1 },
    resolve: async (_root, args, ctx, info) => {
      const account = requireAccount(ctx);
      const { asin, marketplace } = readTaskFields(productKey, { asin: args.asin, marketplace: args.marketplace });
      const loaders = analyticsLoaders(ctx, account);
      for (const window of selectedWindows(info)) windowOf(window, loaders.now);
      const taskId = newTaskId();
      await loaders.charge.load(taskId);
      return { asin, marketplace: marketplace.code, cost: loaders.cost, taskId, account, refunded: false };
    },
  }),
}));
