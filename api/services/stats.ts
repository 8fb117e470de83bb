/**
 * POST stats (issue "History analytics…" wire shapes): per element, statistics and the time series
 * of one product over a window (core/product-stats.ts), charged per valid element at the plan's
 * `history` rate exactly as POST history is (api/services/history.ts): validated first (a bad
 * element costs nothing), charged with its ledger entry in the read's transaction (a failed read
 * keeps no charge).
 */
import { runChargedTasks } from './charged-tasks.js';
import type { AuthAccount } from '../../core/authentication.js';
import { DomainError } from '../../core/errors.js';
import { chargedRead } from '../../core/ledger.js';
import { planOf } from '../../core/pricing.js';
import { readProductStats, type StatsQuery } from '../../core/product-stats.js';
import { STATUS } from '../../core/domain/status-codes.js';
import { resolveStatsWindow, statsTask } from '../../core/validation/analytics.js';
import { readTaskFields } from '../../core/validation/read-fields.js';
import { taskArray } from '../../core/validation/task-body.js';
import { batchOutcome, type BatchOutcome } from '../../core/domain/outcomes.js';
import type { ProductTaskDeps } from './product-tasks.js';

/**
 * Reads one stats element: its fields (40501 / 40502 / 40503) and its window (`now` is the
 * request's time, so every element of a request counts its days from the same instant).
 * @throws DomainError for the first field that fails
 */
export function readStatsElement(element: Record<string, unknown>, now: Date): StatsQuery {
  const { asin, marketplace, days, from, to, bucket } = readTaskFields(statsTask, element);
  const window = resolveStatsWindow({ days, from, to }, now);
  return { asin, marketplace: marketplace.code, ...window, points: bucket ?? 'raw' };
}

/**
 * Answers POST stats: one task per element whose result is `[ProductStats]` (core/product-stats.ts).
 * @throws DomainError 40200 (HTTP 402) when no valid element could be paid; 40000 / 405xx (HTTP 400)
 *   when none is valid (`runChargedTasks`)
 */
export async function stats(deps: ProductTaskDeps, account: AuthAccount, body: unknown): Promise<BatchOutcome> {
  const elements = taskArray(body);
  const cost = planOf(account.plan).rates.history;
  const now = new Date();
  const path = ['v1', 'retail', 'product', 'stats'];
  const tasks = await runChargedTasks(elements, { fn: 'stats', path, logger: deps.logger }, async (element, { id, payable, paid }) => {
    const query = readStatsElement(element, now);
    payable();
    // Charge and read are one transaction: a failed read (50000) rolls its charge back.
    const read = await chargedRead(deps.db, { accountId: account.id, amount: cost, taskId: id, note: 'stats' }, async (sql) => (await readProductStats(sql, [query]))[0]);
    if (read === null) throw new DomainError('PAYMENT_REQUIRED');
    paid();
    return { code: STATUS.OK, cost, result: [read.value] };
  });
  return batchOutcome(tasks);
}
