/**
 * Balance movements. Every charge and refund is a ledger entry written in the same database
 * transaction as the balance change; the balance never goes below zero (conditional update plus
 * the `accounts_balance_non_negative` CHECK). Amounts are USD.
 */
import type { Prisma, PrismaClient } from './db/prisma.js';

type Tx = Prisma.TransactionClient | PrismaClient;

/** USD amount as the exact decimal text stored in NUMERIC(18,6). */
export function usd(amount: number): string {
  return (Math.round(amount * 1e6) / 1e6).toFixed(6);
}

/**
 * Charges `amount` USD if the balance covers it.
 * @returns the balance after the charge, or `null` when the balance does not cover it (40200).
 */
export async function tryCharge(
  tx: Tx,
  entry: { accountId: number; amount: number; taskId?: string; subscriptionId?: number; kind?: string; note?: string },
): Promise<number | null> {
  const amount = usd(entry.amount);
  const rows = await tx.$queryRaw<{ balance: string }[]>`
    UPDATE accounts SET balance = balance - ${amount}::numeric
    WHERE id = ${entry.accountId} AND balance >= ${amount}::numeric
    RETURNING balance::text AS balance`;
  const row = rows[0];
  if (!row) return null;
  await tx.ledgerEntry.create({
    data: {
      accountId: entry.accountId,
      kind: entry.kind ?? 'charge',
      amount: `-${amount}`,
      balanceAfter: row.balance,
      taskId: entry.taskId ?? null,
      subscriptionId: entry.subscriptionId ?? null,
      note: entry.note ?? null,
    },
  });
  return Number(row.balance);
}

/**
 * Credits `amount` USD (a refund or a top-up) and records the ledger entry.
 * @returns the balance after the credit.
 */
export async function credit(
  tx: Tx,
  entry: { accountId: number; amount: number | string; kind: 'refund' | 'topup'; taskId?: string; note?: string },
): Promise<number> {
  const amount = typeof entry.amount === 'string' ? entry.amount : usd(entry.amount);
  const rows = await tx.$queryRaw<{ balance: string }[]>`
    UPDATE accounts SET balance = balance + ${amount}::numeric WHERE id = ${entry.accountId}
    RETURNING balance::text AS balance`;
  const row = rows[0];
  if (!row) throw new Error(`account ${entry.accountId} not found`);
  await tx.ledgerEntry.create({
    data: { accountId: entry.accountId, kind: entry.kind, amount, balanceAfter: row.balance, taskId: entry.taskId ?? null, note: entry.note ?? null },
  });
  return Number(row.balance);
}
