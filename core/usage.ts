/**
 * Usage counters per account, UTC day and endpoint (api-spec.md "Appendix endpoints": usage,
 * user_data; "Other result objects": Usage). Costs are USD. Every metered request adds one
 * request, the envelope's `tasks_count` and the envelope's `cost` with one atomic upsert.
 */
import type { Prisma, PrismaClient } from './db/prisma.js';
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

/**
 * Adds one request, `tasks` tasks and `cost` USD to the counter of (account, UTC day, endpoint),
 * atomically (INSERT ... ON CONFLICT DO UPDATE), so concurrent requests never lose a count.
 */
export async function recordUsage(db: Db, entry: { accountId: number; endpoint: string; tasks: number; cost: number; at?: Date }): Promise<void> {
  const day = utcDay(entry.at);
  await db.$executeRaw`
    INSERT INTO usage_counters (account_id, day, endpoint, requests, tasks, cost)
    VALUES (${entry.accountId}, ${day}::date, ${entry.endpoint}, 1, ${Math.max(0, Math.trunc(entry.tasks))}, ${usd(entry.cost)}::numeric)
    ON CONFLICT (account_id, day, endpoint) DO UPDATE SET
      requests = usage_counters.requests + EXCLUDED.requests,
      tasks = usage_counters.tasks + EXCLUDED.tasks,
      cost = usage_counters.cost + EXCLUDED.cost`;
}

/** One counter row as read back: `day` is `YYYY-MM-DD` (UTC), `cost` USD. */
export interface UsageRow extends UsageTotals {
  day: string;
  endpoint: string;
}

/** The account's counter rows from `from` to `to` (UTC days, inclusive), oldest first. */
export async function usageRows(db: Db, accountId: number, from: string, to: string): Promise<UsageRow[]> {
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
