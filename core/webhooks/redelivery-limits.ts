/**
 * How often an account may start redeliveries: REDELIVERIES_PER_MINUTE, counted by
 * rate-limiter-flexible's PostgreSQL store in the `rate_limits` table (key `redeliver:<account>`),
 * so the limit holds across every API process, as the request limits do (core/rate-limits.ts).
 */
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../db/db.js';
import { DomainError } from '../errors.js';

/** Redeliveries one account may start per minute. */
export const REDELIVERIES_PER_MINUTE = 10;

/** The redelivery limit of every account. */
export class RedeliveryLimits {
  private readonly limiter: RateLimiterPostgres;

  constructor(db: Db) {
    const sql = db.sql;
    // The table comes from the migrations; expired windows are replaced by the next consume and
    // purged by the retention purge (no clean-up timer that would outlive the database).
    this.limiter = new RateLimiterPostgres({
      storeClient: { query: (q: { name?: string; text: string; values?: unknown[] }) => sql.query({ name: q.name ?? '', text: q.text }, q.values ?? []) },
      storeType: 'pool', tableName: 'rate_limits', tableCreated: true, clearExpiredByTimeout: false,
      keyPrefix: 'redeliver', points: REDELIVERIES_PER_MINUTE, duration: 60,
    });
  }

  /**
   * Counts one redelivery of the account.
   * @throws DomainError RATE_LIMITED (HTTP 429, `Retry-After` seconds) beyond REDELIVERIES_PER_MINUTE; nothing is counted then.
   */
  async consume(accountId: number): Promise<void> {
    try {
      await this.limiter.consume(String(accountId));
    } catch (result) {
      if (!(result instanceof RateLimiterRes)) throw result;
      await this.limiter.reward(String(accountId), 1);
      throw new DomainError('RATE_LIMITED', { message: `Rate limit exceeded. At most ${REDELIVERIES_PER_MINUTE} redeliveries per minute.`, retryAfterSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)) });
    }
  }

  /** Gives back a redelivery that did not start. */
  async giveBack(accountId: number): Promise<void> {
    await this.limiter.reward(String(accountId), 1);
  }
}
