/**
 * Composition: mounts the GraphQL presenter (api/graphql) on the Koa app beside the REST routes.
 * POST and GET /graphql: hands the request to the GraphQL server (api/graphql/yoga.ts), which
 * authenticates, rate limits and meters it itself. The POST body has already been read and parsed
 * by the JSON body middleware (1 MiB limit, 413 / 40000; malformed JSON 40000), so it is passed on
 * as JSON text. GET serves GraphiQL outside production, and queries without charged fields.
 */
import { Router } from '@koa/router';
import type { IntervalCache } from '../core/interval-cache.js';
import type { AccountRateLimits } from '../core/rate-limits.js';
import type { MarketplaceStatusRow } from './services/status.js';
import type { AppState } from './rest/context.js';
import type { GraphQLDeps } from './graphql/context.js';
import { createGraphQLServer } from './graphql/yoga.js';

/** Request headers not forwarded: the body is re-serialised, so its length and encoding change. */
const DROPPED_REQUEST_HEADERS = new Set(['content-length', 'transfer-encoding', 'content-encoding', 'connection']);

/** The GraphQL route; `rateLimits` and `statuses` are the app's, shared with the REST routes. */
export function graphqlRoutes(deps: GraphQLDeps, rateLimits?: AccountRateLimits, statuses?: IntervalCache<MarketplaceStatusRow[]>): Router<AppState> {
  const router = new Router<AppState>();
  const yoga = createGraphQLServer(deps, { rateLimits, statuses });

  router.all('/graphql', async (ctx) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(ctx.req.headers)) {
      if (value === undefined || DROPPED_REQUEST_HEADERS.has(name)) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    const hasBody = ctx.method === 'POST';
    if (hasBody) headers.set('content-type', 'application/json');
    const url = new URL(ctx.originalUrl, `${ctx.protocol}://${ctx.host || 'localhost'}`);
    const response = await yoga.fetch(
      url,
      { method: ctx.method, headers, body: hasBody ? JSON.stringify(ctx.request.json ?? null) : undefined },
    );
    ctx.status = response.status;
    response.headers.forEach((value, name) => {
      if (name !== 'content-length') ctx.set(name, value);
    });
    ctx.body = Buffer.from(await response.arrayBuffer());
  });
  return router;
}
