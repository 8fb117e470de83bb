/**
 * GET /v1/appendix/user_data (api-spec.md "Appendix endpoints", "Other result objects": account
 * data). One task whose result holds the account: login, email, balance (USD), plan, limits
 * (per-minute requests and tasks: the account's override, else the plan default), rates (the
 * plan's price table, USD), usage today and this month (UTC), active API keys (prefix and last
 * four characters only) and the webhook secret.
 */
import type { Db } from '../../core/db/db.js';
import { newTaskId } from '../../core/ids.js';
import { planOf } from '../../core/pricing.js';
import { usageTotals, utcDay } from '../../core/usage.js';
import type { AuthAccount } from '../../core/authentication.js';
import { batchOutcome, taskOutcome, type BatchOutcome } from '../../core/domain/outcomes.js';
import { keyListing } from './api-keys.js';
import { STATUS } from '../../core/domain/status-codes.js';

/** Builds the user_data outcome for the authenticated account. */
export async function userData(db: Db, auth: AuthAccount): Promise<BatchOutcome> {
  const account = await db.prisma.account.findUniqueOrThrow({
    where: { id: auth.id },
    include: { apiKeys: { where: { revokedAt: null }, orderBy: { id: 'asc' } } },
  });
  const plan = planOf(account.plan);
  const today = utcDay();
  const [usageToday, usageMonth] = [
    await usageTotals(db, account.id, today, today),
    await usageTotals(db, account.id, `${today.slice(0, 7)}-01`, today),
  ];
  const result = [{
    login: account.login,
    email: account.email,
    balance: Number(account.balance),
    plan: plan.name,
    limits: {
      requests_per_minute: account.requestsPerMinute ?? plan.requestsPerMinute,
      tasks_per_minute: account.tasksPerMinute ?? plan.tasksPerMinute,
    },
    rates: { ...plan.rates },
    usage: { today: usageToday, this_month: usageMonth },
    api_keys: account.apiKeys.map(keyListing),
    webhook_secret: account.webhookSecret,
  }];
  const task = taskOutcome({ id: newTaskId(), code: STATUS.OK, path: ['v1', 'appendix', 'user_data'], data: { api: 'appendix', function: 'user_data' }, result });
  return batchOutcome([task]);
}
