/**
 * Authentication (api-spec.md "Authentication"): HTTP Basic `login:api_key` or Bearer `api_key`.
 * Keys are looked up by their SHA-256 hash. Failures are request-level 401: 40100 (missing,
 * malformed, mismatch), 40101 (revoked key), 40102 (disabled account).
 */
import type { Middleware } from 'koa';
import type { PrismaClient } from '../../core/db/prisma.js';
import { AppError } from '../../core/errors.js';
import { hashApiKey } from '../../core/api-keys.js';
import type { AccountRateLimits } from '../../core/rate-limits.js';
import { planOf } from '../../core/pricing.js';
import type { AppState, AuthAccount } from '../context.js';

/** Resolves the Authorization header to an account; `undefined` when there is no header. */
export async function authenticate(prisma: PrismaClient, header: string | undefined): Promise<AuthAccount | undefined> {
  if (!header) return undefined;
  const match = /^(Basic|Bearer) ([^\s]+)$/i.exec(header.trim());
  if (!match) throw new AppError('AUTH_FAILED');
  let login: string | undefined;
  let key: string;
  if (match[1]!.toLowerCase() === 'basic') {
    const decoded = Buffer.from(match[2]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) throw new AppError('AUTH_FAILED');
    login = decoded.slice(0, colon);
    key = decoded.slice(colon + 1);
  } else {
    key = match[2]!;
  }
  const apiKey = await prisma.apiKey.findUnique({
    where: { keyHash: hashApiKey(key) },
    select: {
      id: true,
      revokedAt: true,
      account: { select: { id: true, login: true, plan: true, disabled: true, requestsPerMinute: true, tasksPerMinute: true } },
    },
  });
  if (!apiKey || (login !== undefined && apiKey.account.login !== login)) throw new AppError('AUTH_FAILED');
  if (apiKey.revokedAt) throw new AppError('KEY_REVOKED');
  if (apiKey.account.disabled) throw new AppError('ACCOUNT_DISABLED');
  const plan = planOf(apiKey.account.plan);
  return {
    id: apiKey.account.id,
    login: apiKey.account.login,
    plan: apiKey.account.plan,
    keyId: apiKey.id,
    limits: {
      requestsPerMinute: apiKey.account.requestsPerMinute ?? plan.requestsPerMinute,
      tasksPerMinute: apiKey.account.tasksPerMinute ?? plan.tasksPerMinute,
    },
  };
}

/** Task objects a request carries: the elements of a POST array body, none for other requests. */
function taskCount(body: unknown): number {
  return Array.isArray(body) ? Math.min(body.length, 100) : 0;
}

/**
 * Requires authentication (40100 without a header), then counts the request against the
 * account's rate limits when `rateLimits` is given (429 / 40202 before anything is charged).
 */
export function requireAuth(prisma: PrismaClient, rateLimits?: AccountRateLimits): Middleware<AppState> {
  return async (ctx, next) => {
    const account = await authenticate(prisma, ctx.get('authorization') || undefined);
    if (!account) throw new AppError('AUTH_FAILED');
    ctx.state.account = account;
    await rateLimits?.consume(account.id, account.limits, taskCount(ctx.request.json));
    await next();
  };
}

/** Optional authentication: a key, when sent, must be valid, and the call is metered and rate limited. */
export function optionalAuth(prisma: PrismaClient, rateLimits?: AccountRateLimits): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.account = await authenticate(prisma, ctx.get('authorization') || undefined);
    if (ctx.state.account) await rateLimits?.consume(ctx.state.account.id, ctx.state.account.limits, taskCount(ctx.request.json));
    await next();
  };
}
