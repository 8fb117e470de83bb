/**
 * Per-account rate limits: requests per minute and tasks per minute (api-spec.md "Limits",
 * error 40202). Counters live in the database's `rate_limits` table in rate-limiter-flexible's
 * PostgreSQL store format (key `req:<account>` / `tasks:<account>`, points, window end in epoch
 * ms), so they hold across every API process. Each window costs one atomic upsert per request
 * (`INSERT … ON CONFLICT DO UPDATE … RETURNING`; a row whose window expired starts a new one),
 * sent as a prepared statement through the hot-path SQL runner (core/db/sql.ts). The REST
 * middleware counts both windows inside its authentication statement (`countingSql`: the store's
 * own upsert on the same rows) and settles them here; GraphQL operations and the refunds of
 * refused requests go through the library's `RateLimiterPostgres`. Limits are the account's
 * overrides, else its plan's defaults.
 */
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from './db/db.js';
import type { Sql } from './db/sql.js';
import { DomainError } from './errors.js';

/** Effective limits of one account, per minute. */
export interface AccountLimits {
  requestsPerMinute: number;
  tasksPerMinute: number;
}

const WINDOW_SECONDS = 60;
/** The store's table (migration 20261122110000_rate_limits_epoch_ms: `expire` in epoch ms). */
const TABLE = 'rate_limits';
/** Key prefixes of the two windows (`req:<account id>`, `tasks:<account id>`). */
const REQUESTS = 'req';
const TASKS = 'tasks';

/** One window's row after a request was counted: points used in the window and its end (epoch ms). */
export interface CountedWindow {
  points: number;
  expire: number;
}

/** What `countingSql` counted for one request: the requests window, and the tasks window when it carried tasks. */
export interface CountedRequest {
  requests: CountedWindow;
  tasks: CountedWindow | null;
}

/**
 * SQL that counts one request, and with `p.tasks` that many task objects (nothing when 0), for
 * each account of `accounts` (an SQL query with an `account_id` column: the authenticated account,
 * or none) against its windows, exactly as `RateLimiterPostgres` consumes points on the same rows:
 * `ctes` defines the data-modifying CTEs `counted_requests` (and `counted_tasks`), `columns` is the
 * select list returning what they counted (`CountedColumns`; read it with `countedFromRow`, then
 * settle with `AccountRateLimits.settle`). `now`, `end` and `tasks` are the placeholders of
 * `countingParams()`'s values; requests without tasks leave `tasks` out (less work per GET).
 */
export function countingSql(accounts: string, p: { now: string; end: string; tasks?: string }): { ctes: string; columns: string } {
  const upsert = (prefix: string, points: string, where: string) => `INSERT INTO ${TABLE} (key, points, expire)
      SELECT '${prefix}:' || account_id, ${points}, ${p.end} FROM (${accounts}) AS counted_accounts ${where}
      ON CONFLICT (key) DO UPDATE SET
        points = CASE WHEN ${TABLE}.expire <= ${p.now} THEN EXCLUDED.points ELSE ${TABLE}.points + EXCLUDED.points END,
        expire = CASE WHEN ${TABLE}.expire <= ${p.now} THEN EXCLUDED.expire ELSE ${TABLE}.expire END
      RETURNING points, expire`;
  const requests = `counted_requests AS (${upsert(REQUESTS, '1', '')})`;
  const requestColumns = `(SELECT points FROM counted_requests) AS "requestPoints", (SELECT expire::text FROM counted_requests) AS "requestWindowEnd"`;
  if (!p.tasks) return { ctes: requests, columns: `${requestColumns}, NULL::int AS "taskPoints", NULL::text AS "taskWindowEnd"` };
  return {
    ctes: `${requests}, counted_tasks AS (${upsert(TASKS, p.tasks, `WHERE ${p.tasks} > 0`)})`,
    columns: `${requestColumns}, (SELECT points FROM counted_tasks) AS "taskPoints", (SELECT expire::text FROM counted_tasks) AS "taskWindowEnd"`,
  };
}

/** The columns of `countingSql`'s `columns`. */
export interface CountedColumns {
  requestPoints: number | null;
  requestWindowEnd: string | null;
  taskPoints: number | null;
  taskWindowEnd: string | null;
}

/** What a row's `CountedColumns` say; null when nothing was counted (the key did not authenticate). */
export function countedFromRow(row: CountedColumns): CountedRequest | null {
  if (row.requestPoints === null) return null;
  return {
    requests: { points: row.requestPoints, expire: Number(row.requestWindowEnd) },
    tasks: row.taskPoints === null ? null : { points: row.taskPoints, expire: Number(row.taskWindowEnd) },
  };
}

/** The values of `countingSql`'s `now`, `end` (epoch ms, bigint) and `tasks` placeholders, in this order. */
export function countingParams(tasks: number, now = Date.now()): { now: number; end: number; tasks: number } {
  return { now, end: now + WINDOW_SECONDS * 1000, tasks };
}

/** Most task objects one list counts: a request carries at most 100 (api-spec.md; more is refused with 40001). */
export const MAX_COUNTED_TASKS = 100;

/**
 * Task objects a list carries against the tasks-per-minute limit: its elements, at most
 * `MAX_COUNTED_TASKS`; anything but an array carries none. The one rule for every way in: a REST
 * POST body (api/rest/middleware/auth.ts) and each list argument of a GraphQL root field, as the
 * resolver receives it (api/graphql/operation-cost.ts).
 */
export function taskObjects(list: unknown): number {
  return Array.isArray(list) ? Math.min(list.length, MAX_COUNTED_TASKS) : 0;
}

/** rate-limiter-flexible's PostgreSQL store calls `query({ name, text, values })` on a pool-like client. */
function storeClient(sql: Sql) {
  return {
    query: (q: { name?: string; text: string; values?: unknown[] }) => sql.query({ name: q.name ?? '', text: q.text }, q.values ?? []),
  };
}

/** Rate limiting for every authenticated request. */
export class AccountRateLimits {
  private readonly limiters = new Map<string, RateLimiterPostgres>();
  private readonly store: ReturnType<typeof storeClient>;

  constructor(db: Db) {
    this.store = storeClient(db.sql);
  }

  private limiter(kind: typeof REQUESTS | typeof TASKS, points: number): RateLimiterPostgres {
    const id = `${kind}:${points}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      // The table comes from the migrations (tableCreated). No background clean-up timer (it would
      // outlive the database in tests and on shutdown): each consume replaces its own key's
      // expired window, and there is one row per account and kind.
      limiter = new RateLimiterPostgres({
        storeClient: this.store, storeType: 'pool', tableName: TABLE, tableCreated: true, clearExpiredByTimeout: false,
        keyPrefix: kind, points, duration: WINDOW_SECONDS,
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  /**
   * Counts `requests` requests (default 1; a GraphQL operation counts the REST calls its root
   * fields stand for) carrying `tasks` task objects against the account's limits: one statement
   * for the requests window, one more when there are tasks. As `settle`: over the requests limit
   * nothing stays counted; over the tasks limit the requests do, the tasks are given back.
   * @throws AppError 40202 (HTTP 429) with `Retry-After` in seconds when either limit is exceeded;
   *   the request is then refused before anything is charged.
   */
  async consume(accountId: number, limits: AccountLimits, tasks: number, requests = 1): Promise<void> {
    await this.take(this.limiter(REQUESTS, limits.requestsPerMinute), accountId, requests);
    if (tasks > 0) await this.take(this.limiter(TASKS, limits.tasksPerMinute), accountId, tasks);
  }

  /**
   * Settles a request whose windows `countingSql` already counted, as `consume` would have: over
   * the requests limit, its request and tasks are given back; over the tasks limit, its tasks.
   * @throws AppError 40202 (HTTP 429) with `Retry-After` when it is over either limit.
   */
  async settle(accountId: number, limits: AccountLimits, counted: CountedRequest, tasks: number): Promise<void> {
    if (counted.requests.points > limits.requestsPerMinute) {
      if (counted.tasks) await this.limiter(TASKS, limits.tasksPerMinute).reward(String(accountId), tasks);
      await this.refuse(this.limiter(REQUESTS, limits.requestsPerMinute), accountId, 1, counted.requests.expire - Date.now());
    }
    if (counted.tasks && counted.tasks.points > limits.tasksPerMinute) {
      await this.refuse(this.limiter(TASKS, limits.tasksPerMinute), accountId, tasks, counted.tasks.expire - Date.now());
    }
  }

  /**
   * Gives back the task points of a request that created no task (an Idempotency-Key replay): its
   * request still counts, its tasks do not.
   */
  async giveBackTasks(accountId: number, limits: AccountLimits, tasks: number): Promise<void> {
    if (tasks > 0) await this.limiter(TASKS, limits.tasksPerMinute).reward(String(accountId), tasks);
  }

  /**
   * Takes up to `wanted` points of the account's tasks-per-minute window (bulk task_post: each chunk
   * of valid rows takes what is left of the window); points beyond the limit are given back at once,
   * so concurrent takers never hold more than the limit between them.
   * @returns the points granted (0..wanted, the first rows of the chunk) and, when fewer than
   *   wanted, the seconds until the window ends
   */
  async takeTasksUpTo(accountId: number, limits: AccountLimits, wanted: number): Promise<{ granted: number; retryAfterSeconds: number }> {
    if (wanted <= 0) return { granted: 0, retryAfterSeconds: 0 };
    const limiter = this.limiter(TASKS, limits.tasksPerMinute);
    let result: RateLimiterRes;
    try {
      result = await limiter.consume(String(accountId), wanted);
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      result = refused;
    }
    const refused = Math.min(wanted, Math.max(0, result.consumedPoints - limits.tasksPerMinute));
    if (refused > 0) await limiter.reward(String(accountId), refused);
    return { granted: wanted - refused, retryAfterSeconds: refused > 0 ? Math.max(1, Math.ceil(result.msBeforeNext / 1000)) : 0 };
  }

  private async take(limiter: RateLimiterPostgres, accountId: number, points: number): Promise<void> {
    try {
      await limiter.consume(String(accountId), points);
    } catch (result) {
      if (!(result instanceof RateLimiterRes)) throw result;
      await this.refuse(limiter, accountId, points, result.msBeforeNext);
    }
  }

  /** A refused request does no work: its points are given back, so it does not count against the window. */
  private async refuse(limiter: RateLimiterPostgres, accountId: number, points: number, msBeforeNext: number): Promise<never> {
    await limiter.reward(String(accountId), points);
    const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
    throw new DomainError('RATE_LIMITED', { retryAfterSeconds: seconds });
  }
}
