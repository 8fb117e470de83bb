/**
 * Appendix endpoints under /v1/appendix (api-spec.md "Appendix endpoints"): user_data, usage and
 * keys need authentication; marketplaces, status and errors take it optionally (a key sent is
 * checked and the call is metered). All three are free. status: availability per marketplace
 * (api/services/status.ts).
 */
import { Router } from '@koa/router';
import type { Db } from '../../../core/db/db.js';
import type { AccountRateLimits } from '../../../core/rate-limits.js';
import { newTaskId } from '../../../core/ids.js';
import { marketplaceRows } from '../../../core/marketplaces.js';
import { STATUS, STATUS_CODES } from '../../../core/domain/status-codes.js';
import type { AppState } from '../context.js';
import { envelope, taskObject, type Envelope, renderEnvelope } from '../envelope/envelope.js';
import { optionalAuth, requireAuth } from '../middleware/auth.js';
import { createKeys, revokeKey } from '../../services/api-keys.js';
import type { IntervalCache } from '../../../core/interval-cache.js';
import { cachedMarketplaceStatuses, type MarketplaceStatusRow } from '../../services/status.js';
import { ledger } from '../../services/ledger.js';
import { usage } from '../../services/usage.js';
import { userData } from '../../services/user-data.js';


/** A one-task, free envelope listing `result` for `fn`. */
function listing(fn: string, result: unknown[], startedAt: number): Envelope {
  const task = taskObject({ id: newTaskId(), code: STATUS.OK, startedAt, path: ['v1', 'appendix', fn], data: { api: 'appendix', function: fn }, result });
  return envelope(startedAt, [task]);
}

/** The 18 status codes: `{ status_code, status_message, http_status, description }`; http_status is the request-level one. */
export function statusCodeRows() {
  return Object.values(STATUS_CODES).map((row) => ({ ...row }));
}

/**
 * The appendix router; `rateLimits`, when given, applies the per-account limits to authenticated
 * calls; `statuses` is the app's marketplace-status cache (shared with GraphQL), else its own.
 */
export function appendixRoutes(deps: { db: Db }, rateLimits?: AccountRateLimits, statuses: IntervalCache<MarketplaceStatusRow[]> = cachedMarketplaceStatuses(deps.db)): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/v1/appendix' });
  const auth = requireAuth(deps.db, rateLimits);
  const maybeAuth = optionalAuth(deps.db, rateLimits);

  router.get('/user_data', auth, async (ctx) => {
    ctx.body = renderEnvelope(await userData(deps.db, ctx.state.account!), ctx.state.startedAt);
  });
  router.get('/usage', auth, async (ctx) => {
    ctx.body = renderEnvelope(await usage(deps.db, ctx.state.account!, ctx.query), ctx.state.startedAt);
  });
  router.get('/ledger', auth, async (ctx) => {
    ctx.body = renderEnvelope(await ledger(deps.db, ctx.state.account!, ctx.query), ctx.state.startedAt);
  });
  router.post('/keys', auth, async (ctx) => {
    ctx.body = renderEnvelope(await createKeys(deps.db, ctx.state.account!, ctx.request.json), ctx.state.startedAt);
  });
  router.delete('/keys/:key_id', auth, async (ctx) => {
    ctx.body = renderEnvelope(await revokeKey(deps.db, ctx.state.account!, ctx.params.key_id), ctx.state.startedAt);
  });
  router.get('/marketplaces', maybeAuth, async (ctx) => {
    ctx.body = listing('marketplaces', marketplaceRows(), ctx.state.startedAt);
  });
  router.get('/status', maybeAuth, async (ctx) => {
    ctx.body = listing('status', await statuses.get(), ctx.state.startedAt);
  });
  router.get('/errors', maybeAuth, async (ctx) => {
    ctx.body = listing('errors', statusCodeRows(), ctx.state.startedAt);
  });
  return router;
}
