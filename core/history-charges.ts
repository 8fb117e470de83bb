/**
 * History elements charged together: `n` elements of the same price (the plan's `history` rate)
 * in one statement, as many as the balance covers in order, each with its own ledger entry — so a
 * GraphQL query reading the analytics of N products (`product` fields) is charged with one
 * statement, exactly as N history elements charged one after the other would be. Each charge is a
 * read reservation (`r:<task id>`, core/reservations.ts): kept once its answer is sent, refunded if
 * its read fails, refunded by the reconciler if neither happened.
 */
import type { Sql, Statement } from './db/sql.js';
import { usd } from './ledger.js';

// The account row is locked first; k = the elements the balance covers; entry i's balance_after is
// the balance after the first i charges.
const CHARGE_EACH: Statement = {
  name: 'history-charges:each',
  text: `WITH input AS (
      SELECT id, n FROM unnest($3::uuid[]) WITH ORDINALITY AS t(id, n)
    ), acct AS (
      SELECT id, LEAST((SELECT count(*) FROM input), floor(balance / $2::numeric))::int AS k FROM accounts WHERE id = $1::int FOR UPDATE
    ), charged AS (
      UPDATE accounts a SET balance = a.balance - $2::numeric * acct.k FROM acct
      WHERE a.id = acct.id AND acct.k > 0
      RETURNING a.id, a.balance, acct.k
    ), entries AS (
      INSERT INTO ledger_entries (account_id, kind, amount, balance_after, task_id, note, run_key)
      SELECT c.id, 'charge', -($2::numeric), c.balance + $2::numeric * (c.k - i.n), i.id, $4, 'r:' || i.id::text
      FROM charged c JOIN input i ON i.n <= c.k
    )
    SELECT coalesce((SELECT k FROM charged), 0) AS charged`,
};

/**
 * Charges `cost` USD for each of `taskIds`, in order, while the balance covers it.
 * @returns how many were charged: the first `n` of `taskIds` (the rest: 40200, nothing written)
 */
export async function chargeEach(sql: Sql, charge: { accountId: number; cost: number; taskIds: readonly string[]; note: string }): Promise<number> {
  if (charge.taskIds.length === 0) return 0;
  if (charge.cost === 0) return charge.taskIds.length;
  const { rows } = await sql.query<{ charged: number }>(CHARGE_EACH, [charge.accountId, usd(charge.cost), charge.taskIds, charge.note]);
  return rows[0]?.charged ?? 0;
}
