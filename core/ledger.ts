/**
 * Balance movements. Every charge and refund is a ledger entry written in the same database
 * transaction as the balance change; the balance never goes below zero (conditional update plus
 * the `accounts_balance_non_negative` CHECK). Amounts are USD.
 */
import type { Db } from './db/db.js';
import type { Prisma, PrismaClient } from './db/prisma.js';
import { createSql, type Sql } from './db/sql.js';
import { usdText } from './domain/money.js';

type Tx = Prisma.TransactionClient | PrismaClient;

/** USD amount as the exact decimal text stored in NUMERIC(18,6) (core/domain/money.ts `usdText`). */
export const usd = usdText;

/**
 * Charges `amount` USD if the balance covers it, and records the ledger entry, in one statement
 * (conditional balance UPDATE and ledger INSERT in one CTE; inside `tx` when given one). `runKey`
 * names the charge of one monitoring run (unique: a retried run cannot charge twice). The balance
 * moves as core/domain/money.ts `balanceAfterCharge` says, atomically in SQL.
 * @returns the balance after the charge, or `null` when the balance does not cover it (40200).
 */
export async function tryCharge(
  tx: Tx,
  entry: { accountId: number; amount: number; taskId?: string; subscriptionId?: number; kind?: string; note?: string; runKey?: string },
): Promise<number | null> {
  const amount = usd(entry.amount);
  const rows = await tx.$queryRaw<{ balance: string }[]>`
    WITH charged AS (
      UPDATE accounts SET balance = balance - ${amount}::numeric
      WHERE id = ${entry.accountId} AND balance >= ${amount}::numeric
      RETURNING id, balance
    ), entry AS (
      INSERT INTO ledger_entries (account_id, kind, amount, balance_after, task_id, subscription_id, run_key, note)
      SELECT id, ${entry.kind ?? 'charge'}, -(${amount}::numeric), balance, ${entry.taskId ?? null}::uuid, ${entry.subscriptionId ?? null}::int, ${entry.runKey ?? null}, ${entry.note ?? null}
      FROM charged
    )
    SELECT balance::text AS balance FROM charged`;
  const row = rows[0];
  return row ? Number(row.balance) : null;
}

/**
 * Credits `amount` USD (a refund or a top-up) and records the ledger entry, in one statement.
 * @returns the balance after the credit.
 * @throws Error when the account does not exist
 */
export async function credit(
  tx: Tx,
  entry: { accountId: number; amount: number | string; kind: 'refund' | 'topup'; taskId?: string; subscriptionId?: number | null; runKey?: string; note?: string },
): Promise<number> {
  const amount = typeof entry.amount === 'string' ? entry.amount : usd(entry.amount);
  const rows = await tx.$queryRaw<{ balance: string }[]>`
    WITH credited AS (
      UPDATE accounts SET balance = balance + ${amount}::numeric WHERE id = ${entry.accountId}
      RETURNING id, balance
    ), entry AS (
      INSERT INTO ledger_entries (account_id, kind, amount, balance_after, task_id, subscription_id, run_key, note)
      SELECT id, ${entry.kind}, ${amount}::numeric, balance, ${entry.taskId ?? null}::uuid, ${entry.subscriptionId ?? null}::int, ${entry.runKey ?? null}, ${entry.note ?? null}
      FROM credited
    )
    SELECT balance::text AS balance FROM credited`;
  const row = rows[0];
  if (!row) throw new Error(`account ${entry.accountId} not found`);
  return Number(row.balance);
}

/** How long a charged read's transaction may last (ms): the service's statement timeout. */
const CHARGED_READ_TIMEOUT_MS = 30_000;

/**
 * A synchronous charged read (history, stats): charges `charge.amount` USD with its ledger entry
 * (`tryCharge`) and runs `read` on the same transaction, so the charge is kept only with the
 * answer: a read that throws rolls the charge back, and there is no refund to lose.
 * @returns `{ value }`, or `null` when the balance does not cover the charge (nothing read)
 * @throws whatever `read` throws (nothing charged)
 */
export async function chargedRead<T>(
  db: Db,
  charge: { accountId: number; amount: number; taskId: string; note: string },
  read: (sql: Sql) => Promise<T>,
): Promise<{ value: T } | null> {
  return db.prisma.$transaction(async (tx) => {
    if ((await tryCharge(tx, charge)) === null) return null;
    return { value: await read(createSql(tx as PrismaClient, undefined)) };
  }, { timeout: CHARGED_READ_TIMEOUT_MS, maxWait: CHARGED_READ_TIMEOUT_MS });
}

/** One ledger entry as the account's ledger lists it (GET /v1/appendix/ledger). Amounts USD. */
export interface LedgerItem {
  id: string;
  created_at: string;
  /** `charge`, `refund`, `topup`, `monitoring`. */
  kind: string;
  /** Negative for charges, positive for refunds and top-ups. */
  amount: number;
  balance_after: number;
  task_id: string | null;
  subscription_id: number | null;
  note: string | null;
  /** A charge taken before its result (core/reservations.ts): its key and settlement, null while open. */
  reservation: { key: string; settlement: 'kept' | 'refunded' | null; settled_at: string | null } | null;
  /** A refund of a reservation: the reservation's key. */
  refund_of: string | null;
}

/**
 * A page of the account's ledger entries created from `from` (inclusive) to `before` (exclusive),
 * newest first, and how many the range holds.
 */
export async function listLedgerEntries(
  db: Db,
  input: { accountId: number; from: Date; before: Date; limit: number; offset: number },
): Promise<{ total: number; items: LedgerItem[] }> {
  const where = { accountId: input.accountId, createdAt: { gte: input.from, lt: input.before } };
  const [total, rows] = await Promise.all([
    db.prisma.ledgerEntry.count({ where }),
    db.prisma.ledgerEntry.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: input.limit, skip: input.offset }),
  ]);
  const items = rows.map((r): LedgerItem => {
    const refundOf = r.kind === 'refund' && r.runKey?.endsWith(':refund') ? r.runKey.slice(0, -':refund'.length) : null;
    return {
      id: r.id.toString(), created_at: r.createdAt.toISOString(), kind: r.kind, amount: Number(r.amount), balance_after: Number(r.balanceAfter),
      task_id: r.taskId, subscription_id: r.subscriptionId, note: r.note,
      reservation: r.runKey && r.kind !== 'refund'
        ? { key: r.runKey, settlement: (r.settlement as 'kept' | 'refunded' | null) ?? null, settled_at: r.settledAt?.toISOString() ?? null }
        : null,
      refund_of: refundOf,
    };
  });
  return { total, items };
}
