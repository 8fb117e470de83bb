/**
 * Per-account rate limits: requests per minute and tasks per minute (api-spec.md "Limits",
 * error 40202). Counters live in the database through rate-limiter-flexible's Prisma store, so
 * they hold across every API process; limits are the account's overrides, else its plan's defaults.
 */
import { RateLimiterPrisma, RateLimiterRes } from 'rate-limiter-flexible';
import type { PrismaClient } from './db/prisma.js';
import { AppError } from './errors.js';

/** Effective limits of one account, per minute. */
export interface AccountLimits {
  requestsPerMinute: number;
  tasksPerMinute: number;
}

const WINDOW_SECONDS = 60;

/** Rate limiting for every authenticated request. */
export class AccountRateLimits {
  private readonly limiters = new Map<string, RateLimiterPrisma>();

  constructor(private readonly prisma: PrismaClient) {}

  private limiter(kind: 'req' | 'tasks', points: number): RateLimiterPrisma {
    const id = `${kind}:${points}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      // No background clean-up timer (it outlives the database in tests and on shutdown): each
      // consume already replaces its own key's expired row, one row per account and kind.
      limiter = new RateLimiterPrisma({ storeClient: this.prisma, tableName: 'rateLimit', keyPrefix: kind, points, duration: WINDOW_SECONDS, clearExpiredByTimeout: false });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  /**
   * Counts one request carrying `tasks` task objects against the account's limits.
   * @throws AppError 40202 (HTTP 429) with `Retry-After` in seconds when either limit is exceeded;
   *   the request is then refused before anything is charged.
   */
  async consume(accountId: number, limits: AccountLimits, tasks: number): Promise<void> {
    await this.take(this.limiter('req', limits.requestsPerMinute), accountId, 1);
    if (tasks > 0) await this.take(this.limiter('tasks', limits.tasksPerMinute), accountId, tasks);
  }

  private async take(limiter: RateLimiterPrisma, accountId: number, points: number): Promise<void> {
    try {
      await limiter.consume(String(accountId), points);
    } catch (result) {
      if (!(result instanceof RateLimiterRes)) throw result;
      // A refused request does no work: give its points back so it does not count against the window.
      await limiter.reward(String(accountId), points);
      const seconds = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
      throw new AppError('RATE_LIMITED', { headers: { 'Retry-After': String(seconds) } });
    }
  }
}
