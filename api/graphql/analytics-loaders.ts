/**
 * Request-scoped batch loaders of the `product` analytics fields (schema/analytics.ts): whatever
 * the number of `product` fields in an operation, their charges are one statement
 * (core/history-charges.ts), their statistics and series one statement and their changes one
 * statement (core/product-stats.ts) — no query per product. Kept beside the request's context, not
 * in it: created the first time an operation asks for them.
 */
import DataLoader from 'dataloader';
import type { AuthAccount } from '../../core/authentication.js';
import { fromMicros, toMicros } from '../../core/domain/money.js';
import { DomainError } from '../../core/errors.js';
import { chargeEach } from '../../core/history-charges.js';
import { planOf } from '../../core/pricing.js';
import { keepReservations, readReservationKey } from '../../core/reservations.js';
import { readProductChanges, readProductStats, type ProductChange, type ProductStats, type StatsQuery } from '../../core/product-stats.js';
import type { GraphQLContext } from './context.js';

export interface AnalyticsLoaders {
  /** The request's time: every `days` window of the operation counts back from it. */
  now: Date;
  /** USD of one `product` field: the plan's `history` rate. */
  cost: number;
  /** Charges one `product` field (key: its task id, for the ledger entry); 40200 when the balance does not cover it. */
  charge: DataLoader<string, true>;
  /** Task ids of the fields charged so far (their reservations: core/reservations.ts). */
  charged: string[];
  /** Task ids of the charged fields whose read failed (refunded, never kept). */
  failed: Set<string>;
  /** Statistics (and points, as the query asks) of a product and window. */
  stats: DataLoader<StatsQuery, ProductStats, string>;
  /** Changes of a product over a window. */
  changes: DataLoader<StatsQuery, ProductChange[], string>;
}

const loaders = new WeakMap<GraphQLContext, AnalyticsLoaders>();

const keyOf = (q: StatsQuery) => `${q.asin}|${q.marketplace}|${q.from.getTime()}|${q.to.getTime()}|${q.points}`;

function create(ctx: GraphQLContext, account: AuthAccount): AnalyticsLoaders {
  const sql = ctx.db.sql;
  const cost = planOf(account.plan).rates.history;
  const chargedIds: string[] = [];
  return {
    now: new Date(),
    cost,
    charged: chargedIds,
    failed: new Set(),
    charge: new DataLoader<string, true>(async (taskIds) => {
      const charged = await chargeEach(sql, { accountId: account.id, cost, taskIds, note: 'graphql product' });
      chargedIds.push(...taskIds.slice(0, charged));
      // Metered as REST history elements: each field a task, the charged ones' cost.
      ctx.meter.tasks += taskIds.length;
      ctx.meter.cost = fromMicros(toMicros(ctx.meter.cost) + toMicros(cost) * charged);
      return taskIds.map((_, i): true | Error => (i < charged ? true : new DomainError('PAYMENT_REQUIRED')));
    }, { cache: false }),
    stats: new DataLoader(async (queries) => readProductStats(sql, queries), { cacheKeyFn: keyOf }),
    changes: new DataLoader(async (queries) => readProductChanges(sql, queries), { cacheKeyFn: keyOf }),
  };
}

/**
 * Settles the reservations of the operation's charged `product` fields as kept, once its answer is
 * made (the fields whose read failed were refunded already and stay so).
 */
export async function keepAnalyticsReservations(ctx: GraphQLContext): Promise<void> {
  const found = loaders.get(ctx);
  const kept = found?.charged.filter((id) => !found.failed.has(id)) ?? [];
  if (kept.length) await keepReservations(ctx.db, kept.map(readReservationKey));
}

/** The loaders of `ctx`'s operation (the caller must be authenticated). */
export function analyticsLoaders(ctx: GraphQLContext, account: AuthAccount): AnalyticsLoaders {
  let found = loaders.get(ctx);
  if (!found) loaders.set(ctx, (found = create(ctx, account)));
  return found;
}
