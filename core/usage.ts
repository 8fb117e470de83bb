/**
 * Usage counters per account, UTC day and endpoint (api-spec.md "Appendix endpoints": usage,
 * user_data; "Other result objects": Usage). Costs are USD. Every metered request adds one
 * request, the envelope's `tasks_count` and the envelope's `cost` to the usage meter of the
 * process's `Db` (core/db/usage-meter.ts), off the request path; the meter writes what it gathered
 * at most `USAGE_FLUSH_MS` later with one statement that adds the deltas, so several API processes
 * can meter the same counters. It is also written before this process reads the counters (usage,
 * user_data, GraphQL `me`) and at shutdown (`flushUsage`).
 */
import type { Db } from './db/db.js';
import type { UsageEntry } from './db/usage-meter.js';
import { sumUsage, utcDay, type UsageTotals } from './domain/usage-counts.js';
import type { Logger } from './logger.js';

export { addDays, daysBetween, sumUsage, utcDay, type UsageTotals } from './domain/usage-counts.js';
export { USAGE_FLUSH_MS, type UsageEntry } from './db/usage-meter.js';

/**
 * Adds one request, `tasks` tasks and `cost` USD to the counter of (account, UTC day of `at`,
 * endpoint) in `db`'s meter; written to the database within `USAGE_FLUSH_MS` (write errors
 * are logged with `logger` and retried), never lost between concurrent requests. Does not throw.
 */
export async function recordUsage(db: Db, entry: UsageEntry, logger?: Logger): Promise<void> {
  if (logger) db.usage.logger ??= logger;
  db.usage.add(entry);
}

/**
 * Writes the counts `db`'s meter still holds (shutdown; reads of the counters).
 * @throws the database error when the write fails (the counts stay pending and are retried)
 */
export async function flushUsage(db: Db): Promise<void> {
  await db.usage.flush();
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
  await db.usage.flush();
  const rows = await db.prisma.usageCounter.findMany({
    where: { accountId, day: { gte: new Date(`${from}T00:00:00Z`), lte: new Date(`${to}T00:00:00Z`) } },
    orderBy: [{ day: 'asc' }, { endpoint: 'asc' }],
  });
  return rows.map((r) => ({ day: utcDay(r.day), endpoint: r.endpoint, requests: r.requests, tasks: r.tasks, cost: Number(r.cost) }));
}

/** Usage of an account from `from` to `to` (UTC days, inclusive), summed over endpoints. */
export async function usageTotals(db: Db, accountId: number, from: string, to: string): Promise<UsageTotals> {
  return sumUsage(await usageRows(db, accountId, from, to));
}
