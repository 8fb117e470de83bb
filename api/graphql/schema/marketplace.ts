/**
 * Reference data, answerable without authentication (REST: optional auth; a key sent is checked,
 * metered and rate limited): the 12 marketplaces (GET /v1/appendix/marketplaces) and availability
 * per marketplace (GET /v1/appendix/status): the same service, api/services/status.ts, answers both.
 */
import { marketplaceRows } from '../../../core/marketplaces.js';
import { builder, IN_MEMORY_LIST, type RootFieldPolicy } from '../builder.js';

type MarketplaceRow = ReturnType<typeof marketplaceRows>[number];

const MarketplaceRef = builder.objectRef<MarketplaceRow>('Marketplace').implement({
  fields: (t) => ({
    code: t.exposeString('code', { description: 'Marketplace code (com, uk, de, ...).' }),
    domain: t.exposeString('domain'),
    currency: t.exposeString('currency', { description: 'ISO 4217.' }),
    language: t.exposeString('language', { description: 'POSIX locale, e.g. de_DE.' }),
    aliases: t.exposeStringList('aliases', { complexity: IN_MEMORY_LIST, description: 'Aliases accepted for this code (us, usa → com; gb → uk).' }),
  }),
});

export const MarketplaceAvailability = builder.enumType('MarketplaceAvailability', {
  values: ['operational', 'degraded', 'unavailable', 'unknown'] as const,
});

interface MarketplaceStatusShape {
  marketplace: MarketplaceRow;
  available: boolean | null;
  status: (typeof MarketplaceAvailability)['$inferType'];
  successRate24h: number | null;
  sourceReads24h: number;
  medianCompletionMinutes24h: number | null;
  queuedJobs: number;
  searchReads24h: number;
  searchSuccessRate24h: number | null;
}

const MarketplaceStatusRef = builder.objectRef<MarketplaceStatusShape>('MarketplaceStatus').implement({
  description: 'Availability of one marketplace over the last 24 hours (GET /v1/appendix/status).',
  fields: (t) => ({
    marketplace: t.field({ type: MarketplaceRef, resolve: (s) => s.marketplace }),
    available: t.exposeBoolean('available', { nullable: true, description: 'Null when there is not enough recent data.' }),
    status: t.field({ type: MarketplaceAvailability, resolve: (s) => s.status }),
    successRate24h: t.exposeFloat('successRate24h', { nullable: true, description: 'Share (0..1) of successful source reads in the last 24 hours; null without reads.' }),
    sourceReads24h: t.exposeInt('sourceReads24h', { description: 'Source reads in the last 24 hours.' }),
    medianCompletionMinutes24h: t.exposeFloat('medianCompletionMinutes24h', { nullable: true, description: 'Median minutes from task_post to completion over the last 24 hours; null when none completed.' }),
    queuedJobs: t.exposeInt('queuedJobs', { description: 'Tasks queued or running now.' }),
    searchReads24h: t.exposeInt('searchReads24h', { description: 'Search results page reads in the last 24 hours (counted apart from sourceReads24h).' }),
    searchSuccessRate24h: t.exposeFloat('searchSuccessRate24h', { nullable: true, description: 'Share (0..1) of successful search results page reads in the last 24 hours; null without reads.' }),
  }),
});

builder.queryFields((t) => ({
  marketplaces: t.field({
    type: [MarketplaceRef],
    description: 'The 12 supported marketplaces.',
    complexity: IN_MEMORY_LIST,
    extensions: { public: true } satisfies RootFieldPolicy,
    resolve: () => marketplaceRows(),
  }),
  status: t.field({
    type: [MarketplaceStatusRef],
    description: 'Availability per marketplace over the last 24 hours, in marketplace order (GET /v1/appendix/status).',
    complexity: IN_MEMORY_LIST,
    extensions: { public: true } satisfies RootFieldPolicy,
    resolve: async (_root, _args, ctx) => {
      const rows = new Map(marketplaceRows().map((m) => [m.code, m]));
      return (await ctx.statuses.get()).map((s) => ({
        marketplace: rows.get(s.marketplace)!,
        available: s.available,
        status: s.status,
        successRate24h: s.success_rate_24h,
        sourceReads24h: s.source_reads_24h,
        medianCompletionMinutes24h: s.median_completion_minutes_24h,
        queuedJobs: s.queued_jobs,
        searchReads24h: s.search_reads_24h,
        searchSuccessRate24h: s.search_success_rate_24h,
      }));
    },
  }),
}));
