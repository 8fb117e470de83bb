/**
 * Usage counter arithmetic (api-spec.md "Other result objects": Usage — per UTC day requests,
 * tasks and cost; "Limits": usage range): UTC days, the pending counts a process gathers before
 * writing them, and totals. Costs are USD, added in whole micro-dollars (see money.ts). Pure: no
 * I/O; `Date` is used only to compute calendar days.
 */
import { fromMicros, toMicros } from './money.js';

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

/** What one metered request adds to the counter of (account, UTC `day`, endpoint). Cost USD. */
export interface UsageIncrement {
  accountId: number;
  day: string;
  endpoint: string;
  /** Tasks of the request (the envelope's `tasks_count`); fractions and negatives count as whole, at least 0. */
  tasks: number;
  /** USD. */
  cost: number;
}

/** Counts gathered for one counter and not yet written. */
export interface UsageDelta {
  accountId: number;
  day: string;
  endpoint: string;
  requests: number;
  tasks: number;
  /** Cost in micro-dollars (integers add exactly). */
  micros: number;
}

/** Pending deltas by counter key. */
export type PendingUsage = Map<string, UsageDelta>;

/** The key of the counter of (account, day, endpoint). */
export function usageKey(c: { accountId: number; day: string; endpoint: string }): string {
  return `${c.accountId}|${c.day}|${c.endpoint}`;
}

/** Adds one request with its tasks and cost to the counter's pending delta in `pending` (created at zero). */
export function addIncrement(pending: PendingUsage, inc: UsageIncrement): void {
  const key = usageKey(inc);
  let delta = pending.get(key);
  if (!delta) {
    delta = { accountId: inc.accountId, day: inc.day, endpoint: inc.endpoint, requests: 0, tasks: 0, micros: 0 };
    pending.set(key, delta);
  }
  delta.requests += 1;
  delta.tasks += Math.max(0, Math.trunc(inc.tasks));
  delta.micros += toMicros(inc.cost);
}

/** Puts `delta` (a batch that could not be written) back into `pending`, adding to counts gathered since. */
export function mergeDelta(pending: PendingUsage, delta: UsageDelta): void {
  const newer = pending.get(usageKey(delta));
  if (newer) {
    newer.requests += delta.requests;
    newer.tasks += delta.tasks;
    newer.micros += delta.micros;
  } else pending.set(usageKey(delta), delta);
}

/**
 * The deltas of `pending` in write order: by account, day, endpoint — so that concurrent writers
 * (other API processes) lock the counter rows in the same order.
 */
export function writeOrder(pending: PendingUsage): UsageDelta[] {
  return [...pending.values()].sort((a, b) => a.accountId - b.accountId || a.day.localeCompare(b.day) || a.endpoint.localeCompare(b.endpoint));
}

/** The USD cost of a delta (its micro-dollars). */
export function deltaCost(delta: UsageDelta): number {
  return fromMicros(delta.micros);
}

/** Sums rows; costs are added in micro-dollars so the USD total prints exactly. */
export function sumUsage(rows: readonly UsageTotals[]): UsageTotals {
  let micros = 0;
  const totals = { requests: 0, tasks: 0, cost: 0 };
  for (const r of rows) {
    totals.requests += r.requests;
    totals.tasks += r.tasks;
    micros += toMicros(r.cost);
  }
  totals.cost = fromMicros(micros);
  return totals;
}
