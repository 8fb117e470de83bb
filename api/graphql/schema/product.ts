/**
 * Products (api-spec.md "Product"): shared data, the same object REST returns (core/observations
 * `toProduct`), camel-cased. Nothing here leads back to an account: an Observation exposes its
 * id, time and Product, not the tasks or subscriptions that produced it.
 *
 * `productHistory` runs the REST history service with one element, so it is validated, charged
 * (the plan's `history` rate, 40200 when the balance cannot cover it) and metered exactly like
 * POST /v1/retail/product/history. `observedProducts` lists, free, the observations the caller
 * already holds (core/observed-products.ts).
 */
import type { Bsr, CategoryRank, Price, Product, Variant } from '../../../core/product.js';
import { DomainError } from '../../../core/errors.js';
import { isErrorCode } from '../../../core/domain/status-codes.js';
import { resolveMarketplace } from '../../../core/marketplaces.js';
import { isStorableText } from '../../../core/storable-text.js';
import type { StoredObservation } from '../../../core/observations.js';
import { observedProducts } from '../../../core/observed-products.js';
import { history } from '../../services/history.js';
import { builder, IN_MEMORY_LIST, type RootFieldPolicy } from '../builder.js';
import { metered, requireAccount } from '../context.js';

export const ProductStatus = builder.enumType('ProductStatus', {
  description: '`ok`; `no_bsr`: the page has no Best Sellers Rank; `not_found`: no such product on this marketplace.',
  values: ['ok', 'no_bsr', 'not_found'] as const,
});

const VariantRef = builder.objectRef<Variant>('Variant').implement({
  description: 'A sibling variant on the page.',
  fields: (t) => ({
    name: t.exposeString('name'),
    asin: t.exposeString('asin'),
  }),
});

export const PriceRef = builder.objectRef<Price>('Price').implement({
  description: 'Current price in the marketplace currency.',
  fields: (t) => ({
    amount: t.exposeFloat('amount'),
    currency: t.exposeString('currency', { description: 'ISO 4217.' }),
  }),
});

const CategoryRankRef = builder.objectRef<CategoryRank>('CategoryRank').implement({
  fields: (t) => ({
    rank: t.exposeInt('rank'),
    category: t.exposeString('category'),
  }),
});

const BsrRef = builder.objectRef<Bsr>('Bsr').implement({
  description: 'Best Sellers Rank.',
  fields: (t) => ({
    rank: t.exposeInt('rank', { description: 'Rank in the main category.' }),
    category: t.exposeString('category'),
    subcategories: t.field({ type: [CategoryRankRef], complexity: IN_MEMORY_LIST, resolve: (bsr) => bsr.subcategories }),
  }),
});

const ProductDetailRef = builder.objectRef<{ label: string; value: string }>('ProductDetail').implement({
  description: 'One label/value pair of the product details (label as in the REST `details` keys).',
  fields: (t) => ({
    label: t.exposeString('label'),
    value: t.exposeString('value'),
  }),
});

export const ProductRef = builder.objectRef<Product>('Product').implement({
  description: 'One observation of a product page (api-spec.md "Product"). Unreadable fields are null (lists empty).',
  fields: (t) => ({
    asin: t.exposeString('asin'),
    marketplace: t.exposeString('marketplace'),
    url: t.exposeString('url'),
    observedAt: t.field({ type: 'DateTime', resolve: (p) => new Date(p.observed_at) }),
    status: t.field({ type: ProductStatus, resolve: (p) => p.status }),
    title: t.exposeString('title', { nullable: true }),
    byline: t.exposeStringList('byline', { complexity: IN_MEMORY_LIST }),
    variant: t.exposeString('variant', { nullable: true }),
    variants: t.field({ type: [VariantRef], complexity: IN_MEMORY_LIST, resolve: (p) => p.variants }),
    price: t.field({ type: PriceRef, nullable: true, resolve: (p) => p.price }),
    bsr: t.field({ type: BsrRef, nullable: true, resolve: (p) => p.bsr }),
    rating: t.exposeFloat('rating', { nullable: true }),
    ratingsCount: t.exposeInt('ratings_count', { nullable: true }),
    imageUrl: t.exposeString('image_url', { nullable: true }),
    details: t.field({
      type: [ProductDetailRef],
      complexity: IN_MEMORY_LIST,
      resolve: (p) => Object.entries(p.details).map(([label, value]) => ({ label, value })),
    }),
    parserVersion: t.exposeString('parser_version'),
  }),
});

/**
 * A stored observation: its id and time, and the Product read (core/observations.ts
 * `observationsById`, through the request's loaders).
 */
export const ObservationRef = builder.objectRef<StoredObservation>('Observation').implement({
  description: 'One stored read of a product page.',
  fields: (t) => ({
    id: t.id({ resolve: (row) => row.id.toString() }),
    observedAt: t.expose('observedAt', { type: 'DateTime' }),
    product: t.field({ type: ProductRef, resolve: (row) => row.product }),
  }),
});

const ProductHistoryRef = builder.objectRef<{ asin: string; marketplace: string; cost: number; products: Product[] }>('ProductHistory').implement({
  description: 'Stored observations of one product, newest first (REST history, one element).',
  fields: (t) => ({
    asin: t.exposeString('asin'),
    marketplace: t.exposeString('marketplace', { description: 'The marketplace code (aliases resolved).' }),
    cost: t.exposeFloat('cost', { description: 'USD charged for this history read.' }),
    products: t.field({ type: [ProductRef], complexity: IN_MEMORY_LIST, resolve: (h) => h.products }),
  }),
});

builder.queryFields((t) => ({
  productHistory: t.field({
    type: ProductHistoryRef,
    description: 'Stored observations of a product, newest first, from every request or subscription. Charged per call at the plan\'s '
      + '`history` rate exactly like POST /v1/retail/product/history; `from` / `to` are UTC days (YYYY-MM-DD, errors name them '
      + '`date_from` / `date_to`), `limit` 1..1000 (default 100), `offset` 0..1000000. Refused over GET.',
    args: {
      asin: t.arg.string({ required: true }),
      marketplace: t.arg.string({ required: true }),
      from: t.arg.string(),
      to: t.arg.string(),
      limit: t.arg.int(),
      offset: t.arg.int(),
    },
    extensions: { rateLimitTasks: 1, charged: true } satisfies RootFieldPolicy,
    complexity: { field: 10, multiplier: 1 },
    resolve: async (_root, args, ctx) => {
      const element: Record<string, unknown> = { asin: args.asin, marketplace: args.marketplace };
      if (args.from !== undefined) element.date_from = args.from;
      if (args.to !== undefined) element.date_to = args.to;
      if (args.limit !== undefined) element.limit = args.limit;
      if (args.offset !== undefined) element.offset = args.offset;
      const outcome = metered(ctx, await history(ctx.deps, requireAccount(ctx), [element]));
      // One valid element: a field error or an unpaid element is thrown at request level by the service.
      const task = outcome.tasks[0]!;
      if (isErrorCode(task.code)) throw DomainError.ofCode(task.code, task.message);
      return {
        asin: args.asin.trim().toUpperCase(),
        marketplace: resolveMarketplace(args.marketplace)?.code ?? args.marketplace,
        cost: task.cost,
        products: (task.result ?? []) as Product[],
      };
    },
  }),
}));

/** observedProducts page size: default and maximum. */
const OBSERVED_PAGE = { default: 20, max: 100 } as const;
const SEARCH_MAX = 200;

builder.queryFields((t) => ({
  observedProducts: t.field({
    type: [ProductRef],
    description: 'The caller\'s observed products: for each ASIN and marketplace it has read, the newest observation it was given '
      + '(a completed task\'s Product or a subscription\'s latest delivery), newest first. `search`: part of the ASIN or the title '
      + '(case-insensitive, at most 200 characters); `first` 1..100 (default 20). Free: it lists only what the caller already holds.',
    args: { search: t.arg.string(), first: t.arg.int() },
    complexity: (args) => ({ field: 1, multiplier: Math.min(OBSERVED_PAGE.max, Math.max(1, args.first ?? OBSERVED_PAGE.default)) }),
    resolve: async (_root, args, ctx) => {
      const account = requireAccount(ctx);
      const first = args.first ?? OBSERVED_PAGE.default;
      if (!Number.isInteger(first) || first < 1 || first > OBSERVED_PAGE.max) throw DomainError.invalidField('first');
      if (args.search && (args.search.length > SEARCH_MAX || !isStorableText(args.search))) throw DomainError.invalidField('search');
      const rows = await observedProducts(ctx.db, account.id, { first, ...(args.search ? { search: args.search } : {}) });
      return rows;
    },
  }),
}));
