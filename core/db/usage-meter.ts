/**
 * The usage counters one process has counted but not yet written (api-spec.md "Appendix
 * endpoints": usage, user_data). A `Db` owns one meter (core/db/db.ts); core/usage.ts is the
 * service that records, flushes and reads the counters. Costs are USD. What was added is written at
 * most `USAGE_FLUSH_MS` later with one multi-row `INSERT … ON CONFLICT DO UPDATE` that adds the
 * deltas, so several API processes can meter the same counters.
 */
import { usdText } from '../domain/money.js';
import { addIncrement, deltaCost, mergeDelta, utcDay, writeOrder, type PendingUsage } from '../domain/usage-counts.js';
import { createLogger, type Logger } from '../logger.js';
import type { Sql, Statement } from './sql.js';

/** How long a metered request may wait before its counts are written (ms). */
export const USAGE_FLUSH_MS = 1_000;
/** Consecutive failed writes (one a second) after which the pending counts are dropped (and logged). */
const MAX_FAILED_FLUSHES = 60;

/** What one metered request adds; `at` picks the UTC day (default now). Costs are USD. */
export interface UsageEntry {
  accountId: number;
  endpoint: string;
  tasks: number;
  cost: number;
  at?: Date;
}

const ADD_DELTAS: Statement = {
  name: 'usage:add-deltas',
  text: `INSERT INTO usage_counters (account_id, day, endpoint, requests, tasks, cost)
    SELECT * FROM unnest($1::int[], $2::date[], $3::text[], $4::int[], $5::int[], $6::numeric[])
    ON CONFLICT (account_id, day, endpoint) DO UPDATE SET
      requests = usage_counters.requests + EXCLUDED.requests,
      tasks = usage_counters.tasks + EXCLUDED.tasks,
      cost = usage_counters.cost + EXCLUDED.cost`,
};

/** The usage counters not yet written by one process to one database, written through `sql`. */
export class UsageMeter {
  private pending: PendingUsage = new Map();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private failures = 0;
  /** Where write failures are logged; the first `recordUsage` with a logger sets it. */
  logger: Logger | undefined;

  constructor(private readonly sql: Sql) {}

  /** Adds one request of `entry`; written within `USAGE_FLUSH_MS`. Does not throw. */
  add(entry: UsageEntry): void {
    addIncrement(this.pending, { accountId: entry.accountId, day: utcDay(entry.at), endpoint: entry.endpoint, tasks: entry.tasks, cost: entry.cost });
    this.schedule();
  }

  /**
   * Writes everything added so far, after any write already running.
   * @throws the database error when the write fails (the counts stay pending and are retried)
   */
  flush(): Promise<void> {
    const run = this.writing.then(() => this.writeOnce());
    this.writing = run.catch(() => undefined);
    return run;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush().catch((error: unknown) => {
        // Once per streak of failures; the counts stay pending and are retried every second.
        if (this.failures === 1) this.log().error({ err: error, pending: this.pending.size }, 'could not write usage counters; retrying');
      });
    }, USAGE_FLUSH_MS);
    this.timer.unref();
  }

  private log(): Logger {
    return (this.logger ??= createLogger('error'));
  }

  private async writeOnce(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = writeOrder(this.pending);
    this.pending = new Map();
    try {
      await this.sql.query(ADD_DELTAS, [
        batch.map((d) => d.accountId), batch.map((d) => d.day), batch.map((d) => d.endpoint),
        batch.map((d) => d.requests), batch.map((d) => d.tasks), batch.map((d) => usdText(deltaCost(d))),
      ]);
      this.failures = 0;
    } catch (error) {
      if (++this.failures >= MAX_FAILED_FLUSHES) {
        this.log().error({ err: error, lost: batch }, 'usage counters dropped after repeated write failures');
        this.failures = 0;
      } else {
        for (const d of batch) mergeDelta(this.pending, d);
        this.schedule();
      }
      throw error;
    }
  }
}
