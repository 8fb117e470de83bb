/**
 * Operator actions on accounts (operations-contract.md "Admin commands").
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../../core/db/db.js';
import type { Prisma } from '../../core/db/prisma.js';
import { apiKeyRecord, generateApiKey } from '../../core/api-keys.js';
import { credit, usd } from '../../core/ledger.js';
import { PLANS, planOf } from '../../core/pricing.js';
import { resumeAccountSubscriptions } from '../../core/subscriptions.js';
import type { MonitorLauncher } from '../services/monitor-launcher.js';

/** Raised for operator mistakes (unknown login, duplicate login, bad amount); the CLI prints it. */
export class AdminError extends Error {
  override name = 'AdminError';
}

/** Logins: 1-64 letters, digits, `.`, `_`, `-`. */
export const LOGIN_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Input of `createAccount`: `balance` USD (default 0), `plan` (default `standard`). */
export interface NewAccount {
  login: string;
  email: string;
  balance?: number;
  plan?: string;
}

/**
 * Creates an account with its first API key and an optional opening balance (USD, a ledger top-up).
 * @returns `{ id, login, api_key }` — the only time the full key is shown.
 * @throws AdminError for a taken login, an unknown plan or a negative balance.
 */
export async function createAccount(db: Db, input: NewAccount): Promise<{ id: number; login: string; api_key: string }> {
  checkNewAccount(input);
  return db.prisma.$transaction((tx) => createAccountIn(tx, input));
}

/** Validates `createAccount`'s input before any database work. @throws AdminError */
function checkNewAccount(input: NewAccount): void {
  const plan = input.plan ?? 'standard';
  if (!PLANS[plan]) throw new AdminError(`unknown plan "${plan}" (plans: ${Object.keys(PLANS).join(', ')})`);
  if (!LOGIN_PATTERN.test(input.login)) throw new AdminError('login must be 1-64 letters, digits, ".", "_" or "-"');
  if (input.balance !== undefined && !(input.balance >= 0)) throw new AdminError('balance must be a non-negative number of USD');
}

/**
 * `createAccount` inside the caller's transaction `tx` (access request approval creates the
 * account in the same transaction that marks the request approved).
 * @throws AdminError as `createAccount`.
 */
export async function createAccountIn(tx: Prisma.TransactionClient, input: NewAccount): Promise<{ id: number; login: string; api_key: string }> {
  checkNewAccount(input);
  const key = generateApiKey();
  if (await tx.account.findUnique({ where: { login: input.login }, select: { id: true } })) throw new AdminError(`login "${input.login}" is taken`);
  const account = await tx.account.create({
    data: { login: input.login, email: input.email, plan: input.plan ?? 'standard', webhookSecret: randomBytes(32).toString('hex'), apiKeys: { create: { ...apiKeyRecord(key), label: 'initial' } } },
  });
  if (input.balance) await credit(tx, { accountId: account.id, amount: usd(input.balance), kind: 'topup', note: 'opening balance' });
  return { id: account.id, login: account.login, api_key: key };
}

/**
 * Adds `amount` USD to an account's balance (a ledger top-up), then resumes the account's paused
 * monitoring subscriptions when the balance covers the monitoring price (api-spec.md "Subscription
 * status": paused_balance → active on top-up) and signals their monitors through `monitors`. Without
 * `monitors` (or when a signal is lost) each monitor notices within one interval.
 * @returns `{ login, balance }` after the top-up.
 * @throws AdminError for an unknown login or a non-positive amount.
 */
export async function topUp(
  db: Db,
  input: { login: string; amount: number },
  options: { monitors?: Pick<MonitorLauncher, 'resume'> } = {},
): Promise<{ login: string; balance: number }> {
  if (!(input.amount > 0)) throw new AdminError('amount must be a positive number of USD');
  const { accountId, balance } = await db.prisma.$transaction(async (tx) => {
    const account = await tx.account.findUnique({ where: { login: input.login }, select: { id: true } });
    if (!account) throw new AdminError(`no account with login "${input.login}"`);
    const balance = await credit(tx, { accountId: account.id, amount: usd(input.amount), kind: 'topup', note: 'admin topup' });
    return { accountId: account.id, balance };
  });
  const resumed = await resumeAccountSubscriptions(db, accountId);
  if (resumed.length) await options.monitors?.resume(resumed);
  return { login: input.login, balance };
}

/**
 * Disables or enables an account. A disabled account's requests fail with 40102 from the next one
 * on (api-spec.md "Authentication" 4); its monitoring runs charge, read and deliver nothing and its
 * webhook deliveries stop, each checked when it would happen (core/monitoring-runs.ts,
 * worker/activities/webhook-delivery.ts). Enabling signals the account's monitors through
 * `monitors`, so they resume at once; without it (or when a signal is lost) within one interval.
 * @returns `{ login, disabled }`.
 * @throws AdminError for an unknown login.
 */
export async function setDisabled(
  db: Db,
  input: { login: string; disabled: boolean },
  options: { monitors?: Pick<MonitorLauncher, 'resume'> } = {},
): Promise<{ login: string; disabled: boolean }> {
  const { count } = await db.prisma.account.updateMany({ where: { login: input.login }, data: { disabled: input.disabled } });
  if (count === 0) throw new AdminError(`no account with login "${input.login}"`);
  if (!input.disabled && options.monitors) {
    const subscriptions = await db.prisma.subscription.findMany({ where: { account: { login: input.login } }, select: { id: true }, orderBy: { id: 'asc' } });
    if (subscriptions.length) await options.monitors.resume(subscriptions.map((s) => s.id));
  }
  return { login: input.login, disabled: input.disabled };
}

/** Per-account rate limits as reported: requests and tasks per minute. */
export interface Limits {
  requests_per_minute: number;
  tasks_per_minute: number;
}

/**
 * Sets the account's per-minute rate-limit overrides (api-spec.md "Limits": per-account rate
 * limit). A number overrides the plan default, `null` returns to it, `undefined` leaves it as is.
 * @returns `{ login, limits }` with the effective values (override, else the plan's default).
 * @throws AdminError for an unknown login or a value that is not a positive integer.
 */
export async function setLimits(
  db: Db,
  input: { login: string; requestsPerMinute?: number | null; tasksPerMinute?: number | null },
): Promise<{ login: string; limits: Limits }> {
  for (const value of [input.requestsPerMinute, input.tasksPerMinute]) {
    if (value != null && !(Number.isInteger(value) && value > 0 && value <= 2_147_483_647)) throw new AdminError('limits must be positive integers');
  }
  const data: { requestsPerMinute?: number | null; tasksPerMinute?: number | null } = {};
  if (input.requestsPerMinute !== undefined) data.requestsPerMinute = input.requestsPerMinute;
  if (input.tasksPerMinute !== undefined) data.tasksPerMinute = input.tasksPerMinute;
  if (Object.keys(data).length) await db.prisma.account.updateMany({ where: { login: input.login }, data });
  const account = await db.prisma.account.findUnique({ where: { login: input.login }, select: { plan: true, requestsPerMinute: true, tasksPerMinute: true } });
  if (!account) throw new AdminError(`no account with login "${input.login}"`);
  const plan = planOf(account.plan);
  return {
    login: input.login,
    limits: {
      requests_per_minute: account.requestsPerMinute ?? plan.requestsPerMinute,
      tasks_per_minute: account.tasksPerMinute ?? plan.tasksPerMinute,
    },
  };
}
