/**
 * Usage counters per account, UTC day and endpoint (api-spec.md "Appendix endpoints": usage,
 * user_data; "Other result objects": Usage). Costs are USD. Every metered request adds one
 * request, the envelope's `tasks_count` and the envelope's `cost` to an in-memory meter (one per
 * Prisma client, i.e. per process and database), off the request path; the meter writes what it
 * gathered at most `USAGE_FLUSH_MS` later with one multi-row `INSERT … ON CONFLICT DO UPDATE` that
 * adds the deltas, so several API processes can meter the same counters. It is also written before
 * this process reads the counters (usage, user_data, GraphQL `me`) and at shutdown (`flushUsage`).
 */
import type { Prisma, PrismaClient } from './db/prisma.js';
import { sqlOf, type Statement } from './db/sql.js';
import { usdText } from './domain/money.js';
import { addIncrement, deltaCost, mergeDelta, sumUsage, utcDay, writeOrder, type PendingUsage, type UsageTotals } from './domain/usage-counts.js';
import { createLogger, type Logger } from './logger.js';

export { addDays, daysBetween, sumUsage, utcDay, type UsageTotals } from './domain/usage-counts.js';

type Db = Prisma.TransactionClient | PrismaClient;

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

/** The usage counters not yet written by one Prisma client's process. */
class UsageMeter {
  private pending: PendingUsage = new Map();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private failures = 0;
  logger: Logger | undefined;

  constructor(private readonly prisma: PrismaClient) {}

  add(entry: UsageEntry): void {
    addIncrement(this.pending, { accountId: entry.accountId, day: utcDay(entry.at), endpoint: entry.endpoint, tasks: entry.tasks, cost: entry.cost });
    this.schedule();
  }

  /** Writes everything added so far, after any write already running. */
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
      await sqlOf(this.prisma).query(ADD_DELTAS, [
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

const meters = new WeakMap<object, UsageMeter>();

function meterOf(prisma: PrismaClient): UsageMeter {
  let meter = meters.get(prisma);
  if (!meter) meters.set(prisma, (meter = new UsageMeter(prisma)));
  return meter;
}

/**
 * Adds one request, `tasks` tasks and `cost` USD to the counter of (account, UTC day of `at`,
 * endpoint) in `prisma`'s meter; written to the database within `USAGE_FLUSH_MS` (write errors
 * are logged with `logger` and retried), never lost between concurrent requests. Does not throw.
 */
export async function recordUsage(prisma: PrismaClient, entry: UsageEntry, logger?: Logger): Promise<void> {
  const meter = meterOf(prisma);
  if (logger) meter.logger ??= logger;
  meter.add(entry);
}

/**
 * Writes the counts `prisma`'s meter still holds (shutdown; reads of the counters).
 * @throws the database error when the write fails (the counts stay pending and are retried)
 */
export async function flushUsage(prisma: PrismaClient): Promise<void> {
  await meters.get(prisma)?.flush();
}

/** One counter row as read back: `day` is `YYYY-MM-DD` (UTC), `cost` USD. */
export interface UsageRow extends UsageTotals {
  day: string;
  endpoint: string;
}

/**
 * The account's counter rows from `from` to `to` (UTC days, inclusive), oldest first, after
 * writing what this process's meter of `db` still holds.
 */
export async function usageRows(db: Db, accountId: number, from: string, to: string): Promise<UsageRow[]> {
  await meters.get(db)?.flush();
  const rows = await db.usageCounter.findMany({
    where: { accountId, day: { gte: new Date(`${from}T00:00:00Z`), lte: new Date(`${to}T00:00:00Z`) } },
    orderBy: [{ day: 'asc' }, { endpoint: 'asc' }],
  });
  return rows.map((r) => ({ day: utcDay(r.day), endpoint: r.endpoint, requests: r.requests, tasks: r.tasks, cost: Number(r.cost) }));
}

/** Usage of an account from `from` to `to` (UTC days, inclusive), summed over endpoints. */
export async function usageTotals(db: Db, accountId: number, from: string, to: string): Promise<UsageTotals> {
  return sumUsage(await usageRows(db, accountId, from, to));
}
