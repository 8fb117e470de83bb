/**
 * An account's balance and ledger read from one snapshot, for tests that check "the ledger sums to
 * the balance" while charges may still be landing (monitoring deliveries, workers finishing reads).
 * Two separate reads (Prisma's `include` runs one query per relation) could see a charge between
 * them; a REPEATABLE READ transaction makes both queries see the same committed state.
 */
import type { PrismaClient } from '../../core/db/prisma.js';

export interface AccountMoney {
  /** USD. */
  balance: number;
  /** Σ amount of every ledger entry, USD. */
  ledgerSum: number;
  entries: { kind: string; amount: number; subscriptionId: number | null; taskId: string | null }[];
}

/** Balance and ledger of one account (by id or login) as of one moment. Throws when it does not exist. */
export async function accountMoney(prisma: PrismaClient, where: { id: number } | { login: string }): Promise<AccountMoney> {
  const [account, entries] = await prisma.$transaction(
    [
      prisma.account.findUniqueOrThrow({ where, select: { balance: true } }),
      prisma.ledgerEntry.findMany({ where: { account: where }, orderBy: { id: 'asc' } }),
    ],
    { isolationLevel: 'RepeatableRead' },
  );
  return {
    balance: Number(account.balance),
    ledgerSum: entries.reduce((sum, e) => sum + Number(e.amount), 0),
    entries: entries.map((e) => ({ kind: e.kind, amount: Number(e.amount), subscriptionId: e.subscriptionId, taskId: e.taskId })),
  };
}
