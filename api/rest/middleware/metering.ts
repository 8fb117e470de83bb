/**
 * Metering (api-spec.md "Appendix endpoints": usage; "Sending an API key to an optional-auth
 * endpoint meters it like any other call"). Every request that authenticated and is answered with
 * an envelope adds one request, the envelope's `tasks_count` and its `cost` (USD) to the usage
 * counter of (account, UTC day, endpoint). Requests refused with 401 never authenticated, so they
 * are not metered. A request-level error after authentication (404, 400, ...) counts as one
 * request with no tasks and no cost: that is the envelope the error middleware then sends. So
 * does a first response replayed for an Idempotency-Key (api/rest/middleware/idempotency.ts). A
 * response that is not an envelope (a bulk upload's batch, an export) says what it counts in
 * `ctx.state.usage`.
 * The counts go to the process's in-memory usage meter (core/usage.ts), which writes them within a
 * second: metering costs no database statement on the request path.
 */
import type { Middleware } from 'koa';
import type { Db } from '../../../core/db/db.js';
import type { Logger } from '../../../core/logger.js';
import { recordUsage } from '../../../core/usage.js';
import type { AppState } from '../context.js';

/**
 * The endpoint name of a matched route path: its last segment that is not a parameter
 * (`/v1/retail/product/task_get/:id` → `task_get`, `/v1/appendix/keys/:key_id` → `keys`).
 */
export function endpointName(routePath: unknown, requestPath: string): string {
  const source = typeof routePath === 'string' ? routePath : requestPath;
  const known = typeof routePath === 'string' ? routeEndpoints.get(routePath) : undefined;
  if (known) return known;
  const segments = source.split('/').filter((s) => s && !s.startsWith(':') && !/[(*]/.test(s));
  const name = (segments.at(-1) ?? 'unknown').slice(0, 64);
  if (typeof routePath === 'string') routeEndpoints.set(routePath, name);
  return name;
}

/** Endpoint names of the matched route patterns seen so far (a few dozen at most). */
const routeEndpoints = new Map<string, string>();

function isEnvelope(body: unknown): body is { tasks_count: number; cost: number } {
  const b = body as { tasks_count?: unknown; cost?: unknown } | null;
  return typeof b === 'object' && b !== null && typeof b.tasks_count === 'number' && typeof b.cost === 'number';
}

/**
 * Koa middleware placed right after the error-envelope middleware so it wraps every router.
 * A failure to write the counters is logged (with `deps.logger`) and never changes a response.
 */
export function metering(deps: { db: Db; logger: Logger }): Middleware<AppState> {
  return async (ctx, next) => {
    const record = (tasks: number, cost: number, name?: string) => {
      const account = ctx.state.account;
      if (!account) return;
      const endpoint = name ?? endpointName((ctx as { _matchedRoute?: unknown })._matchedRoute, ctx.path);
      void recordUsage(deps.db, { accountId: account.id, endpoint, tasks, cost }, deps.logger);
    };
    try {
      await next();
    } catch (error) {
      record(0, 0);
      throw error;
    }
    if (ctx.state.idempotentReplay) record(0, 0);
    else if (ctx.state.usage) record(ctx.state.usage.tasks, ctx.state.usage.cost, ctx.state.usage.endpoint);
    else if (isEnvelope(ctx.body)) record(ctx.body.tasks_count, ctx.body.cost);
  };
}
