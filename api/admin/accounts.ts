/**
 * Operator actions on accounts (operations-contract.md "Admin commands").
 */
import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../core/db/prisma.js';
import { apiKeyRecord, generateApiKey } from '../../core/api-keys.js';
import { credit, usd } from '../../core/ledger.js';
import { PLANS } from '../../core/pricing.js';

/** Raised for operator mistakes (unknown login, duplicate login, bad amount); the CLI prints it. */
export class AdminError extends Error {
  override name = 'AdminError';
}

/**
 * Creates an account with its first API key and an optional opening balance (USD, a ledger top-up).
 * @returns `{ id, login, api_key }` — the only time the full key is shown.
 * @throws AdminError for a taken login, an unknown plan or a negative balance.
 */
export async function createAccount(
  prisma: PrismaClient,
  input: { login: string; email: string; balance?: number; plan?: string },
): Promise<{ id: number; login: string; api_key: string }> {
  const plan = input.plan ?? 'standard';
  if (!PLANS[plan]) throw new AdminError(`unknown plan "${plan}" (plans: ${Object.keys(PLANS).join(', ')})`);
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(input.login)) throw new AdminError('login must be 1-64 letters, digits, ".", "_" or "-"');
  if (input.balance !== undefined && !(input.balance >= 0)) throw new AdminError('balance must be a non-negative number of USD');
  const key = generateApiKey();
  return prisma.$transaction(async (tx) => {
    if (await tx.account.findUnique({ where: { login: input.login }, select: { id: true } })) throw new AdminError(`login "${input.login}" is taken`);
    const account = await tx.account.create({
      data: { login: input.login, email: input.email, plan, webhookSecret: randomBytes(32).toString('hex'), apiKeys: { create: { ...apiKeyRecord(key), label: 'initial' } } },
    });
    if (input.balance) await credit(tx, { accountId: account.id, amount: usd(input.balance), kind: 'topup', note: 'opening balance' });
    return { id: account.id, login: account.login, api_key: key };
  });
}

/**
 * Adds `amount` USD to an account's balance (a ledger top-up).
 * @returns `{ login, balance }` after the top-up.
 * @throws AdminError for an unknown login or a non-positive amount.
 */
export async function topUp(prisma: PrismaClient, input: { login: string; amount: number }): Promise<{ login: string; balance: number }> {
  if (!(input.amount > 0)) throw new AdminError('amount must be a positive number of USD');
  return prisma.$transaction(async (tx) => {
    const account = await tx.account.findUnique({ where: { login: input.login }, select: { id: true } });
    if (!account) throw new AdminError(`no account with login "${input.login}"`);
    const balance = await credit(tx, { accountId: account.id, amount: usd(input.amount), kind: 'topup', note: 'admin topup' });
    return { login: input.login, balance };
  });
}
