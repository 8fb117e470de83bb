/**
 * The per-request GraphQL context: the caller (authenticated with the REST scheme, optional until a
 * field needs it), the database (`Db`), request-scoped batch loaders, what the request adds to
 * the usage counters, and the server's marketplace-status cache and redelivery limits.
 *
 * Scoping rule: every account-owned row (tasks, subscriptions, keys, usage) is read with
 * `accountId: <caller>` in its `where`, here or in the REST service the field calls; product
 * observations are shared data and carry no link back to an account.
 */
import DataLoader from 'dataloader';
import type { Db } from '../../core/db/db.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { DomainError } from '../../core/errors.js';
import type { BatchOutcome } from '../../core/domain/outcomes.js';
import type { AuthAccount } from '../../core/authentication.js';
import type { IntervalCache } from '../../core/interval-cache.js';
import type { RedeliveryLimits } from '../../core/webhooks/redelivery-limits.js';
import type { MonitorLauncher } from '../services/monitor-launcher.js';
import type { ProductTaskDeps } from '../services/product-tasks.js';
import type { MarketplaceStatusRow } from '../services/status.js';
import type { WebhookLauncher } from '../../core/temporal/webhook-launcher.js';
import { observationsById, type StoredObservation } from '../../core/observations.js';
import { deliveriesLoader } from './deliveries.js';

/** What the GraphQL layer needs: the same dependencies the REST routes get (api/app.ts AppDeps). */
export interface GraphQLDeps extends ProductTaskDeps {
  /** Monitoring workflows; addSubscriptions / deleteSubscriptions need it, like the REST routes. */
  monitors?: MonitorLauncher;
  /** Webhook redeliveries; redeliverWebhook needs it, like the REST route. */
  webhookLauncher?: WebhookLauncher;
}

type TaskRow = NonNullable<Awaited<ReturnType<PrismaClient['task']['findUnique']>>>;
type SubscriptionRow = NonNullable<Awaited<ReturnType<PrismaClient['subscription']['findUnique']>>>;

/** Request-scoped batch loaders: one SQL query per kind and tick, whatever the number of rows. */
export interface Loaders {
  /** Observations by id (shared data). */
  observation: DataLoader<bigint, StoredObservation | null>;
  /** The caller's tasks by id; another account's id loads as null. */
  task: DataLoader<string, TaskRow | null>;
  /** The caller's subscriptions by id; another account's id loads as null. */
  subscription: DataLoader<number, SubscriptionRow | null>;
  /** Pages of observations delivered to subscriptions (keyed by subscription ids already scoped). */
  deliveries: ReturnType<typeof deliveriesLoader>;
}

export interface GraphQLContext {
  deps: GraphQLDeps;
  db: Db;
  /** Marketplace statuses, one cache per app shared with REST (api/services/status.ts). */
  statuses: IntervalCache<MarketplaceStatusRow[]>;
  /** How often an account may start redeliveries (one per server; counted in the database). */
  redeliveryLimits: RedeliveryLimits;
  /** The authenticated caller; undefined when no Authorization header was sent. */
  account: AuthAccount | undefined;
  /** What this request adds to the usage counters (endpoint `graphql`), as REST meters envelopes. */
  meter: { tasks: number; cost: number };
  loaders: Loaders;
}

/** Rows in the order of `keys` (null where missing), as DataLoader wants them. */
function byKey<K, R>(keys: readonly K[], rows: R[], keyOf: (row: R) => K): (R | null)[] {
  const map = new Map(rows.map((row) => [keyOf(row), row]));
  return keys.map((key) => map.get(key) ?? null);
}

/** Builds the request's loaders; the account-owned ones filter on the caller. */
export function createLoaders(db: Db, account: AuthAccount | undefined): Loaders {
  const accountId = account?.id ?? -1;
  return {
    observation: new DataLoader(async (ids) => {
      const found = await observationsById(db.prisma, ids);
      return ids.map((id) => found.get(id) ?? null);
    }),
    task: new DataLoader(async (ids) => byKey(ids, await db.prisma.task.findMany({ where: { id: { in: [...ids] }, accountId } }), (r) => r.id)),
    subscription: new DataLoader(async (ids) => byKey(ids, await db.prisma.subscription.findMany({ where: { id: { in: [...ids] }, accountId } }), (r) => r.id)),
    deliveries: deliveriesLoader(db),
  };
}

/** The caller, or 40100 (the REST answer to a missing Authorization header). */
export function requireAccount(ctx: GraphQLContext): AuthAccount {
  if (!ctx.account) throw new DomainError('AUTH_FAILED');
  return ctx.account;
}

/** Adds a service's outcome to the request's usage (its number of tasks and cost), as REST meters it, and returns it. */
export function metered(ctx: GraphQLContext, outcome: BatchOutcome): BatchOutcome {
  ctx.meter.tasks += outcome.tasks.length;
  ctx.meter.cost += outcome.cost;
  return outcome;
}
