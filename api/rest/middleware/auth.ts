/**
 * Authentication (api-spec.md "Authentication"): HTTP Basic `login:api_key` or Bearer `api_key`.
 * Keys are looked up by their SHA-256 hash, joined with their account in one statement and never
 * cached (a revoked key stops working immediately); for REST requests the same statement counts
 * the request and its task objects against the account's rate limits (core/rate-limits.ts). Failures are
 * request-level 401 (core/authentication.ts).
 */
import type { Middleware } from 'koa';
import type { Db } from '../../../core/db/db.js';
import { DomainError } from '../../../core/errors.js';
import { resolveAccount } from '../../../core/authentication.js';
import type { AccountRateLimits } from '../../../core/rate-limits.js';
import type { AppState } from '../context.js';

/**
 * Requires authentication (40100 without a header), then counts the request against the
 * account's rate limits when `rateLimits` is given (429 / 40202 before anything is charged).
 */
export function requireAuth(db: Db, rateLimits?: AccountRateLimits): Middleware<AppState> {
  return async (ctx, next) => {
    const account = await resolveAccount(db, ctx.get('authorization') || undefined, rateLimits, ctx.request.json);
    if (!account) throw new DomainError('AUTH_FAILED');
    ctx.state.account = account;
    await next();
  };
}

/** Optional authentication: a key, when sent, must be valid, and the call is metered and rate limited. */
export function optionalAuth(db: Db, rateLimits?: AccountRateLimits): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.account = await resolveAccount(db, ctx.get('authorization') || undefined, rateLimits, ctx.request.json);
    await next();
  };
}
