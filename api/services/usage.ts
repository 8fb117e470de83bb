/**
 * GET /v1/appendix/usage (api-spec.md "Appendix endpoints", "Other result objects": Usage,
 * "Limits": usage range at most 366 days). One task whose result holds `date_from`, `date_to`,
 * `days` (every UTC day of the range, zero days included: `{ date, requests, tasks, cost }`),
 * `endpoints` (`{ endpoint, requests, tasks, cost }` per endpoint, by name) and `totals`
 * (`{ requests, tasks, cost }`). Costs are USD.
 */
import type { Db } from '../../core/db/db.js';
import { DomainError } from '../../core/errors.js';
import { newTaskId } from '../../core/ids.js';
import { addDays, daysBetween, sumUsage, usageRows, utcDay, type UsageRow } from '../../core/usage.js';
import type { AuthAccount } from '../../core/authentication.js';
import { batchOutcome, taskOutcome, type BatchOutcome } from '../../core/domain/outcomes.js';
import { readRequestFields } from '../../core/validation/read-fields.js';
import { usageQuery } from '../../core/validation/requests.js';
import { STATUS } from '../../core/domain/status-codes.js';

/** Most days one usage request may span, both ends included. */
export const MAX_USAGE_DAYS = 366;
/** Days in the default range (date_from is 29 days before date_to). */
const DEFAULT_DAYS = 30;

/**
 * Resolves the range: date_to defaults to today (UTC), date_from to 29 days before date_to.
 * @throws AppError 40501 `date_from` / `date_to` for a bad date, `date_from` when it is after
 * date_to or the range exceeds 366 days.
 */
export function usageRange(query: Record<string, unknown>, today = utcDay()): { from: string; to: string } {
  const days = readRequestFields(usageQuery, query);
  const to = days.date_to ?? today;
  const from = days.date_from ?? addDays(to, -(DEFAULT_DAYS - 1));
  const span = daysBetween(from, to);
  if (span < 0 || span + 1 > MAX_USAGE_DAYS) throw DomainError.invalidField('date_from');
  return { from, to };
}

/** Builds the usage outcome for the authenticated account and the query's range. */
export async function usage(db: Db, account: AuthAccount, query: Record<string, unknown>): Promise<BatchOutcome> {
  const { from, to } = usageRange(query);
  const rows = await usageRows(db, account.id, from, to);
  const byDay = groupBy(rows, (r) => r.day);
  const byEndpoint = groupBy(rows, (r) => r.endpoint);
  const days = Array.from({ length: daysBetween(from, to) + 1 }, (_, i) => {
    const date = addDays(from, i);
    return { date, ...sumUsage(byDay.get(date) ?? []) };
  });
  const endpoints = [...byEndpoint.keys()].sort().map((endpoint) => ({ endpoint, ...sumUsage(byEndpoint.get(endpoint)!) }));
  const result = [{ date_from: from, date_to: to, days, endpoints, totals: sumUsage(rows) }];
  const data = { ...query, api: 'appendix', function: 'usage' };
  const task = taskOutcome({ id: newTaskId(), code: STATUS.OK, path: ['v1', 'appendix', 'usage'], data, result });
  return batchOutcome([task]);
}

function groupBy(rows: UsageRow[], key: (r: UsageRow) => string): Map<string, UsageRow[]> {
  const map = new Map<string, UsageRow[]>();
  for (const r of rows) map.set(key(r), [...(map.get(key(r)) ?? []), r]);
  return map;
}
