/**
 * Reference data, answerable without authentication (REST: optional auth; a key sent is checked,
 * metered and rate limited): the 12 marketplaces (GET /v1/appendix/marketplaces) and availability
 * per marketplace.
 *
 * `status`: GET /v1/appendix/status does not exist yet, so there is no shared availability rule
 * to call; until it does, every marketplace answers `status: unknown` and `available: null` (the
 * spec's value "when there is not enough recent data"). The type already has the spec's fields,
 * so the answer only gets better when that service lands.
 */
import { marketplaceRows } from '../../routes/appendix.routes.js';
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
}

const MarketplaceStatusRef = builder.objectRef<MarketplaceStatusShape>('MarketplaceStatus').implement({
  description: 'Availability of one marketplace (GET /v1/appendix/status). Until that endpoint exists: `unknown` / null.',
  fields: (t) => ({
    marketplace: t.field({ type: MarketplaceRef, resolve: (s) => s.marketplace }),
    available: t.exposeBoolean('available', { nullable: true, description: 'Null when there is not enough recent data.' }),
    status: t.field({ type: MarketplaceAvailability, resolve: (s) => s.status }),
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
    description: 'Availability per marketplace; `unknown` / `available: null` until GET /v1/appendix/status exists.',
    complexity: IN_MEMORY_LIST,
    extensions: { public: true } satisfies RootFieldPolicy,
    resolve: () => marketplaceRows().map((marketplace) => ({ marketplace, available: null, status: 'unknown' as const })),
  }),
}));
