/**
 * GET /v1/appendix/ledger: the account's ledger, so a customer can reconcile their own books: every
 * charge, refund and top-up with the balance after it, newest first, and for each reservation (a
 * charge taken before its result, core/reservations.ts) its settlement (`kept`, `refunded`, or
 * null while open) and, on a refund, the reservation it gave back. One task whose result holds
 * `{ date_from, date_to, total_count, offset, items }` (items: core/ledger.ts `LedgerItem`).
 * Free, like usage.
 */
import type { AuthAccount } from '../../core/authentication.js';
import type { Db } from '../../core/db/db.js';
import { batchOutcome, taskOutcome, type BatchOutcome } from '../../core/domain/outcomes.js';
import { STATUS } from '../../core/domain/status-codes.js';
import { newTaskId } from '../../core/ids.js';
import { listLedgerEntries } from '../../core/ledger.js';
import { addDays } from '../../core/usage.js';
import { readRequestFields } from '../../core/validation/read-fields.js';
import { ledgerQuery } from '../../core/validation/requests.js';
import { usageRange } from './usage.js';

/**
 * Builds the ledger outcome for the authenticated account: the query's UTC days (the usage range
 * rules: default the last 30 days, at most 366) and page (`limit` 1-1,000, default 100; `offset`).
 * @throws DomainError 40501 naming the field for a bad date, range, limit or offset
 */
export async function ledger(db: Db, account: AuthAccount, query: Record<string, unknown>): Promise<BatchOutcome> {
  const { limit, offset } = readRequestFields(ledgerQuery, query);
  const { from, to } = usageRange(query);
  const page = await listLedgerEntries(db, {
    accountId: account.id, from: new Date(`${from}T00:00:00Z`), before: new Date(`${addDays(to, 1)}T00:00:00Z`), limit, offset,
  });
  const result = [{ date_from: from, date_to: to, total_count: page.total, offset, items: page.items }];
  const data = { ...query, api: 'appendix', function: 'ledger' };
  return batchOutcome([taskOutcome({ id: newTaskId(), code: STATUS.OK, path: ['v1', 'appendix', 'ledger'], data, result })]);
}
