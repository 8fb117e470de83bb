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
import { createLogger, type Logger } from './logger.js';
import { usd } from './ledger.js';

type Db = Prisma.TransactionClient | PrismaClient;

const DAY_MS = 24 * 3600 * 1000;

/** Requests, tasks and USD cost of some period or endpoint. */
export interface UsageTotals {
  requests: number;
  tasks: number;
  /** USD. */
  cost: number;
}

/** The UTC day of `at` as `YYYY-MM-DD`. */
export function utcDay(at: Date = new Date()): string {
  return at.toISOString().slice(0, 10);
}

/** `day` (`YYYY-MM-DD`) moved by `days` whole UTC days. */
export function addDays(day: string, days: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));
}

/** Number of days from `from` to `to`, both `YYYY-MM-DD` (0 when equal, negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

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

interface Delta {
  accountId: number;
  day: string;
  endpoint: string;
  requests: number;
  tasks: number;
  /** Cost in micro-dollars (integers add exactly). */
  micros: number;
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
  private pending = new Map<string, Delta>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private failures = 0;
  logger: Logger | undefined;

  constructor(private readonly prisma: PrismaClient) {}

  add(entry: UsageEntry): void {
    const day = utcDay(entry.at);
    const key = `${entry.accountId}|${day}|${entry.endpoint}`;
    let delta = this.pending.get(key);
    if (!delta) {
      delta = { accountId: entry.accountId, day, endpoint: entry.endpoint, requests: 0, tasks: 0, micros: 0 };
      this.pending.set(key, delta);
    }
    delta.requests += 1;
    delta.tasks += Math.max(0, Math.trunc(entry.tasks));
    delta.micros += Math.round(entry.cost * 1e6);
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
    // Sorted, so that concurrent writers (other API processes) lock the rows in the same order.
    const batch = [...this.pending.values()].sort((a, b) => a.accountId - b.accountId || a.day.localeCompare(b.day) || a.endpoint.localeCompare(b.endpoint));
    this.pending = new Map();
    try {
      await sqlOf(this.prisma).query(ADD_DELTAS, [
        batch.map((d) => d.accountId), batch.map((d) => d.day), batch.map((d) => d.endpoint),
        batch.map((d) => d.requests), batch.map((d) => d.tasks), batch.map((d) => usd(d.micros / 1e6)),
      ]);
      this.failures = 0;
    } catch (error) {
      if (++this.failures >= MAX_FAILED_FLUSHES) {
        this.log().error({ err: error, lost: batch }, 'usage counters dropped after repeated write failures');
        this.failures = 0;
      } else {
        for (const d of batch) this.restore(d);
        this.schedule();
      }
      throw error;
    }
  }

  private restore(d: Delta): void {
    const key = `${d.accountId}|${d.day}|${d.endpoint}`;
    const newer = this.pending.get(key);
    if (newer) {
      newer.requests += d.requests;
      newer.tasks += d.tasks;
      newer.micros += d.micros;
    } else this.pending.set(key, d);
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

/** Sums rows; costs are added in micro-dollars so the USD total prints exactly. */
export function sumUsage(rows: readonly UsageTotals[]): UsageTotals {
  let micros = 0;
  const totals = { requests: 0, tasks: 0, cost: 0 };
  for (const r of rows) {
    totals.requests += r.requests;
    totals.tasks += r.tasks;
    micros += Math.round(r.cost * 1e6);
  }
  totals.cost = micros / 1e6;
  return totals;
}

/** Usage of an account from `from` to `to` (UTC days, inclusive), summed over endpoints. */
export async function usageTotals(db: Db, accountId: number, from: string, to: string): Promise<UsageTotals> {
  return sumUsage(await usageRows(db, accountId, from, to));
}
