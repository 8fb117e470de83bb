/**
 * POST history (api-spec.md "Product endpoints"): stored observations of a product, newest first,
 * from every request or subscription; charged per valid element of the body.
 */
import { runChargedTasks } from './charged-tasks.js';
import { DomainError } from '../../core/errors.js';
import { chargedRead } from '../../core/ledger.js';
import { readHistory } from '../../core/observations.js';
import { planOf } from '../../core/pricing.js';
import type { AuthAccount } from '../../core/authentication.js';
import { batchOutcome, type BatchOutcome } from '../../core/domain/outcomes.js';
import { readTaskFields } from '../../core/validation/read-fields.js';
import { historyTask } from '../../core/validation/requests.js';
import { taskArray } from '../../core/validation/task-body.js';
import type { ProductTaskDeps } from './product-tasks.js';
import { STATUS } from '../../core/domain/status-codes.js';

const DAY_MS = 86_400_000;

/**
 * Answers POST history: per valid element, charges the plan's `history` rate (USD) and returns the
 * product's stored observations as Products, newest first (`limit` / `offset`, `date_from` /
 * `date_to` as UTC days, both inclusive).
 * @throws AppError 40200 (HTTP 402) when no valid element could be paid; 40000 / 405xx (HTTP 400)
 *   when none is valid (`runChargedTasks`)
 */
export async function history(deps: ProductTaskDeps, account: AuthAccount, body: unknown): Promise<BatchOutcome> {
  const elements = taskArray(body);
  const cost = planOf(account.plan).rates.history;
  const path = ['v1', 'retail', 'product', 'history'];
  const tasks = await runChargedTasks(elements, { fn: 'history', path, logger: deps.logger }, async (element, { id, payable, paid }) => {
    const { asin, marketplace: { code: marketplace }, date_from: dateFrom, date_to: dateTo, limit, offset } = readTaskFields(historyTask, element);
    if (dateFrom && dateTo && dateFrom > dateTo) throw DomainError.invalidField('date_from');
    payable();
    // Charge and read are one transaction (core/ledger.ts `chargedRead`): a failed read (50000,
    // runChargedTasks) rolls its charge back.
    const read = await chargedRead(deps.db, { accountId: account.id, amount: cost, taskId: id, note: 'history' }, (sql) => readHistory(sql, {
      asin, marketplace, offset, limit,
      from: dateFrom ? new Date(`${dateFrom}T00:00:00Z`) : null,
      before: dateTo ? new Date(Date.parse(`${dateTo}T00:00:00Z`) + DAY_MS) : null,
    }));
    if (read === null) throw new DomainError('PAYMENT_REQUIRED');
    paid();
    return { code: STATUS.OK, cost, result: read.value };
  });
  return batchOutcome(tasks);
}
