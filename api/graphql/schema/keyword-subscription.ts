/**
 * Keyword subscriptions seen by the dashboard: `subscription(id)` (one of the caller's
 * subscriptions), and on a subscription `latestRanks`, where each tracked ASIN stood in the
 * subscription's latest delivered run (search-page-contract.md "API", Monitoring): its organic rank
 * over the pages read and whether it held a sponsored slot, as the rank alert rules judge it
 * (core/domain/rank-alert-rules.ts `rankSideOf`). Free, as the subscription's other delivered data:
 * the account paid for those runs. The keyword's full history stays behind the charged `rankHistory`.
 */
import DataLoader from 'dataloader';
import { rankSideOf } from '../../../core/domain/rank-alert-rules.js';
import type { SearchResults } from '../../../core/search.js';
import { searchResultsById } from '../../../core/search-observations.js';
import { builder } from '../builder.js';
import { requireAccount, type GraphQLContext } from '../context.js';
import { SubscriptionRef } from './subscription.js';

/** Where one tracked ASIN stood in a run. */
interface TrackedRank {
  asin: string;
  observedAt: Date;
  organicRank: number | null;
  sponsored: boolean;
}

const TrackedRankRef = builder.objectRef<TrackedRank>('TrackedRank').implement({
  description: 'Where a tracked ASIN stood in one keyword monitoring run: the side a rank alert rule judges.',
  fields: (t) => ({
    asin: t.exposeString('asin'),
    observedAt: t.expose('observedAt', { type: 'DateTime', description: 'When the run\'s page 1 was read.' }),
    organicRank: t.exposeInt('organicRank', {
      nullable: true,
      description: 'The organic rank over the pages read (non-sponsored items counted across pages, page 1 first); null when the ASIN was on none of them.',
    }),
    sponsored: t.exposeBoolean('sponsored', { description: 'Whether the ASIN held a sponsored slot on the pages read.' }),
  }),
});

/**
 * Stored search results by observation id, batched per request (one statement for every
 * subscription of a page); kept beside the request context, which it lives and dies with.
 */
const searchLoaders = new WeakMap<GraphQLContext, DataLoader<bigint, SearchResults | null>>();

function searchLoader(ctx: GraphQLContext): DataLoader<bigint, SearchResults | null> {
  let loader = searchLoaders.get(ctx);
  if (!loader) {
    loader = new DataLoader(async (ids) => {
      const found = await searchResultsById(ctx.db, ids);
      return ids.map((id) => found.get(id) ?? null);
    }, { cacheKeyFn: String });
    searchLoaders.set(ctx, loader);
  }
  return loader;
}

builder.prismaObjectFields('Subscription', (t) => ({
  latestRanks: t.field({
    type: [TrackedRankRef],
    description: 'Keyword subscriptions: each tracked ASIN in the latest delivered run, in `trackAsins` order; empty before the first delivery and for product subscriptions.',
    select: { trackAsins: true, latestSearchObservationIds: true },
    resolve: async (s, _args, ctx) => {
      if (s.trackAsins.length === 0 || s.latestSearchObservationIds.length === 0) return [];
      const loaded = await searchLoader(ctx).loadMany(s.latestSearchObservationIds);
      const failed = loaded.find((p) => p instanceof Error);
      if (failed) throw failed;
      // A page the retention purge deleted is left out (the run's other pages still count).
      const pages = loaded.filter((p): p is SearchResults => p !== null && !(p instanceof Error)).sort((a, b) => a.page - b.page);
      const first = pages[0];
      if (!first) return [];
      return s.trackAsins.map((asin) => {
        const side = rankSideOf(asin, pages, first.observed_at);
        return { asin, observedAt: new Date(side.observed_at), organicRank: side.organic_rank ?? null, sponsored: side.sponsored ?? false };
      });
    },
  }),
}));

builder.queryFields((t) => ({
  subscription: t.field({
    type: SubscriptionRef,
    nullable: true,
    description: 'One of the caller\'s subscriptions (product or keyword); null for an unknown id or another account\'s.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => {
      requireAccount(ctx);
      return ctx.loaders.subscription.load(args.id);
    },
  }),
}));
