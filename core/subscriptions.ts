/**
 * Monitoring subscriptions: the domain rules of api-spec.md "Subscription status", shared by the
 * API (add, delete, list), the worker (status checks, delivering an observation) and the admin CLI
 * (resuming on top-up). Every change that depends on the balance or the account's pause flag runs
 * under the account's row lock, so add, deliver, pause and resume never interleave for an account.
 */
import type { Db } from './db/db.js';
import type { Prisma } from './db/prisma.js';
import { replaceAlertRules } from './alerts.js';
import { tryCharge } from './ledger.js';
import type { AlertRuleSpec } from './domain/alert-rules.js';
import { planOf, type Rates } from './pricing.js';
import { searchKeywordKey } from './search-observations.js';
import type { DeliveryOutcome, Frequency, SubscriptionState } from './domain/subscription-messages.js';

export { FREQUENCIES, type Frequency } from './domain/subscription-messages.js';

/** Monitored products per account (api-spec.md "Limits"). */
export const MAX_SUBSCRIPTIONS_PER_ACCOUNT = 10_000;

/** A subscription row as Prisma returns it. */
export type SubscriptionRow = Prisma.SubscriptionGetPayload<object>;

type Tx = Prisma.TransactionClient;

/** Generous waits: the embedded database is a single connection shared by API and worker. */
export const TX_OPTIONS = { maxWait: 30_000, timeout: 30_000 };

/** What the subscription rules need of a locked account row; `balance` USD. */
export interface LockedAccount {
  balance: number;
  plan: string;
  /** The account's subscriptions are paused for balance. */
  paused: boolean;
  /** The operator disabled the account (api-spec.md "Authentication" 4). */
  disabled: boolean;
}

/** The account's row, locked for the rest of the transaction; undefined when it does not exist. */
export async function lockAccount(tx: Tx, accountId: number): Promise<LockedAccount | undefined> {
  const rows = await tx.$queryRaw<{ balance: string; plan: string; subscriptions_paused: boolean; disabled: boolean }[]>`
    SELECT balance::text AS balance, plan, subscriptions_paused, disabled FROM accounts WHERE id = ${accountId} FOR UPDATE`;
  const row = rows[0];
  return row && { balance: Number(row.balance), plan: row.plan, paused: row.subscriptions_paused, disabled: row.disabled };
}

/** The fields both forms of a monitoring/add element share. */
interface SubscriptionRequestCommon {
  marketplace: string;
  frequency: Frequency;
  tag?: string | null;
  externalUserId?: string | null;
  /** The alert rules, replacing the subscription's (core/alerts.ts `replaceAlertRules`). */
  alerts?: AlertRuleSpec[];
  /** Where change events are POSTed (checked against the webhook URL rules); null: nowhere. */
  alertUrl?: string | null;
}

/** A product subscription (monitoring/add with `asin`). */
export interface ProductSubscriptionRequest extends SubscriptionRequestCommon {
  kind?: 'product';
  asin: string;
}

/**
 * A keyword subscription (monitoring/add with `keyword`, search-page-contract.md "API"). `pages`
 * and `trackAsins` undefined: 1 and none on creation, unchanged on update.
 */
export interface KeywordSubscriptionRequest extends SubscriptionRequestCommon {
  kind: 'search';
  /** As posted: trimmed, inner white space collapsed, case kept. */
  keyword: string;
  /** Results pages read per run, 1-5. */
  pages?: number;
  /** The ASINs whose ranks the rank rules judge, 0-50, uppercased. */
  trackAsins?: string[];
}

/** One element of monitoring/add, validated. `undefined` tag / external id / alerts / alert URL: not given. */
export type SubscriptionRequest = ProductSubscriptionRequest | KeywordSubscriptionRequest;

/** USD a run of the subscription reserves: the plan's monitoring price, or its monitoring search price per page. */
export function runPrice(rates: Rates, sub: { kind?: string | null; pages?: number | null }): number {
  if (sub.kind !== 'search') return rates.monitoring;
  return Math.round(rates.search_monitoring * (sub.pages ?? 1) * 1e6) / 1e6;
}

/** What monitoring/add did with one element. */
export type AddOutcome =
  /** A new subscription (`active`, or `paused_balance` when the balance is below the monitoring
   *  price or the account's subscriptions are paused). */
  | { kind: 'created'; row: SubscriptionRow }
  /** The same asin (or keyword) + marketplace was already monitored: frequency and tag updated, status unchanged. */
  | { kind: 'updated'; row: SubscriptionRow }
  /** The account already monitors MAX_SUBSCRIPTIONS_PER_ACCOUNT products. */
  | { kind: 'limit' };

/** A subscription's identity within its account: its product, or its keyword's key, with the marketplace. */
function identityOf(sub: { kind?: string | null; asin?: string | null; keyword?: string | null; marketplace: string }): string {
  return sub.kind === 'search' ? `k:${sub.marketplace}:${searchKeywordKey(sub.keyword!)}` : `p:${sub.marketplace}:${sub.asin}`;
}

/**
 * Adds subscriptions in one transaction under the account's lock, in order. The same asin +
 * marketplace (a keyword: the same keyword key + marketplace) as an existing subscription (or an
 * earlier element) updates its frequency and, when given, its tag, alert URL and alert rules (and a
 * keyword's pages and tracked ASINs; rules of ASINs no longer tracked go unless alerts are given);
 * the last element naming them wins; `external_user_id` is set on creation only. A new subscription
 * starts paused when the balance cannot pay one run of it (`runPrice`). Adding is free.
 */
export async function addSubscriptions(db: Db, accountId: number, requests: SubscriptionRequest[]): Promise<AddOutcome[]> {
  if (requests.length === 0) return [];
  return db.prisma.$transaction(async (tx) => {
    const account = await lockAccount(tx, accountId);
    if (!account) throw new Error(`account ${accountId} not found`);
    const rates = planOf(account.plan).rates;
    const startPaused = (r: SubscriptionRequest) => account.paused || account.balance < runPrice(rates, { kind: r.kind, pages: r.kind === 'search' ? (r.pages ?? 1) : null });
    const existing = await tx.subscription.findMany({
      where: {
        accountId,
        OR: requests.map((r) => (r.kind === 'search'
          ? { kind: 'search', keywordKey: searchKeywordKey(r.keyword), marketplace: r.marketplace }
          : { kind: 'product', asin: r.asin, marketplace: r.marketplace })),
      },
    });
    let count = await tx.subscription.count({ where: { accountId } });
    const byPair = new Map<string, SubscriptionRow>(existing.map((row) => [identityOf(row), row]));
    /** Keyword subscriptions whose tracked ASINs changed without new alerts: rules on untracked ASINs go. */
    const retracked = new Set<string>();
    const changed = new Set<string>();
    /** The last `alerts` given per pair. */
    const alerts = new Map<string, AlertRuleSpec[]>();
    const creates = new Map<string, Prisma.SubscriptionCreateManyInput>();
    const plan: (string | null)[] = [];
    for (const r of requests) {
      const key = identityOf(r);
      const row = byPair.get(key);
      const pending = creates.get(key);
      if (r.alerts !== undefined) alerts.set(key, r.alerts);
      const search = r.kind === 'search' ? r : null;
      if (row) {
        const pagesChange = search?.pages !== undefined && row.pages !== search.pages;
        const trackChange = search?.trackAsins !== undefined && row.trackAsins.join() !== search.trackAsins.join();
        if (row.frequency !== r.frequency || (r.tag !== undefined && row.tag !== r.tag) || (r.alertUrl !== undefined && row.alertUrl !== r.alertUrl) || pagesChange || trackChange) changed.add(key);
        row.frequency = r.frequency;
        if (r.tag !== undefined) row.tag = r.tag;
        if (r.alertUrl !== undefined) row.alertUrl = r.alertUrl;
        if (search?.pages !== undefined) row.pages = search.pages;
        if (search?.trackAsins !== undefined) row.trackAsins = search.trackAsins;
        if (trackChange && r.alerts === undefined) retracked.add(key);
      } else if (pending) {
        pending.frequency = r.frequency;
        if (r.tag !== undefined) pending.tag = r.tag;
        if (r.alertUrl !== undefined) pending.alertUrl = r.alertUrl;
        if (search?.pages !== undefined) pending.pages = search.pages;
        if (search?.trackAsins !== undefined) pending.trackAsins = search.trackAsins;
      } else if (count >= MAX_SUBSCRIPTIONS_PER_ACCOUNT) {
        alerts.delete(key);
        plan.push(null);
        continue;
      } else {
        count++;
        const form = search
          ? { kind: 'search', asin: null, keyword: search.keyword, keywordKey: searchKeywordKey(search.keyword), pages: search.pages ?? 1, trackAsins: search.trackAsins ?? [] }
          : { kind: 'product', asin: (r as ProductSubscriptionRequest).asin };
        creates.set(key, {
          accountId, ...form, marketplace: r.marketplace, frequency: r.frequency, tag: r.tag ?? null,
          externalUserId: r.externalUserId ?? null, status: startPaused(r) ? 'paused_balance' : 'active', alertUrl: r.alertUrl ?? null,
        });
      }
      plan.push(key);
    }
    const created = creates.size ? await tx.subscription.createManyAndReturn({ data: [...creates.values()] }) : [];
    const createdKeys = new Set<string>();
    for (const row of created) {
      const key = identityOf(row);
      byPair.set(key, row);
      createdKeys.add(key);
    }
    for (const key of changed) {
      const row = byPair.get(key)!;
      byPair.set(key, await tx.subscription.update({
        where: { id: row.id },
        data: { frequency: row.frequency, tag: row.tag, alertUrl: row.alertUrl, ...(row.kind === 'search' ? { pages: row.pages, trackAsins: row.trackAsins } : {}) },
      }));
    }
    for (const key of retracked) {
      const row = byPair.get(key)!;
      await tx.alertRule.deleteMany({ where: { subscriptionId: row.id, asin: { notIn: row.trackAsins } } });
    }
    for (const [key, specs] of alerts) await replaceAlertRules(tx, byPair.get(key)!.id, specs);
    return plan.map((key): AddOutcome => {
      if (key === null) return { kind: 'limit' };
      return { kind: createdKeys.has(key) ? 'created' : 'updated', row: byPair.get(key)! };
    });
  }, TX_OPTIONS);
}

/** Finds one of the account's subscriptions by id, by asin + marketplace, or by keyword (case-insensitive) + marketplace. */
export async function findSubscription(
  db: Db,
  accountId: number,
  by: { id: number } | { asin: string; marketplace: string } | { keyword: string; marketplace: string },
): Promise<SubscriptionRow | null> {
  if ('id' in by) return db.prisma.subscription.findFirst({ where: { id: by.id, accountId } });
  if ('keyword' in by) return db.prisma.subscription.findFirst({ where: { accountId, kind: 'search', keywordKey: searchKeywordKey(by.keyword), marketplace: by.marketplace } });
  return db.prisma.subscription.findFirst({ where: { accountId, kind: 'product', asin: by.asin, marketplace: by.marketplace } });
}

/**
 * Deletes a subscription of the account. Its observations stay in history (the foreign key is
 * ON DELETE SET NULL). @returns the deleted row, or null when there was none.
 */
export async function deleteSubscription(db: Db, accountId: number, id: number): Promise<SubscriptionRow | null> {
  const rows = await db.prisma.subscription.findMany({ where: { id, accountId } });
  if (!rows[0]) return null;
  const { count } = await db.prisma.subscription.deleteMany({ where: { id, accountId } });
  return count === 1 ? rows[0] : null;
}

/** The subscription's status as stored; `deleted` once the row is gone. */
export async function subscriptionState(db: Db, id: number): Promise<SubscriptionState> {
  const row = await db.prisma.subscription.findUnique({ where: { id }, select: { status: true } });
  return row ? (row.status as SubscriptionState) : 'deleted';
}

/**
 * Pauses every subscription of the account (`paused_balance`) and sets its pause flag, inside
 * the caller's transaction (which holds the account's lock).
 */
export async function pauseAccountSubscriptions(tx: Tx, accountId: number): Promise<void> {
  await tx.$executeRaw`UPDATE subscriptions SET status = 'paused_balance', updated_at = now() WHERE account_id = ${accountId} AND status <> 'paused_balance'`;
  await tx.$executeRaw`UPDATE accounts SET subscriptions_paused = true WHERE id = ${accountId}`;
}

/**
 * Resumes the account's subscriptions after a top-up: every `paused_balance` subscription becomes
 * `active` and the pause flag is cleared, provided the balance now covers the monitoring price
 * (otherwise nothing changes: the next delivery could not be paid either).
 * @returns ids of the subscriptions resumed (their monitors should be signalled).
 */
export async function resumeAccountSubscriptions(db: Db, accountId: number): Promise<number[]> {
  return db.prisma.$transaction(async (tx) => {
    const account = await lockAccount(tx, accountId);
    if (!account || account.balance < planOf(account.plan).rates.monitoring) return [];
    const rows = await tx.$queryRaw<{ id: number }[]>`
      UPDATE subscriptions SET status = 'active', updated_at = now()
      WHERE account_id = ${accountId} AND status = 'paused_balance' RETURNING id`;
    if (account.paused) await tx.$executeRaw`UPDATE accounts SET subscriptions_paused = false WHERE id = ${accountId}`;
    return rows.map((r) => r.id).sort((a, b) => a - b);
  }, TX_OPTIONS);
}

/**
 * Delivers an observation read for a subscription, in one transaction under the account's lock:
 * - `not_found` observations are attached and become the latest, never charged (`free`);
 * - otherwise the monitoring price is charged (`charged`), and the observation becomes the latest;
 * - when the balance cannot cover it, or the account's subscriptions are already paused, every
 *   subscription of the account becomes `paused_balance`, the pause flag is set, and the
 *   observation is detached: it was read but not paid for, so it stays in history as a plain
 *   observation, not as a delivery (`paused`);
 * - a subscription deleted meanwhile charges nothing (`deleted`).
 * Idempotent for activity retries: an observation already delivered or detached is not charged again.
 */
export async function deliverObservation(db: Db, input: { subscriptionId: number; observationId: bigint }): Promise<DeliveryOutcome> {
  return db.prisma.$transaction(async (tx) => {
    const sub = await tx.subscription.findUnique({ where: { id: input.subscriptionId }, select: { accountId: true } });
    if (!sub) return 'deleted';
    const account = await lockAccount(tx, sub.accountId);
    const current = await tx.subscription.findUnique({ where: { id: input.subscriptionId }, select: { latestObservationId: true } });
    const observation = await tx.observation.findUnique({ where: { id: input.observationId }, select: { status: true, subscriptionId: true } });
    if (!account || !current || !observation) return 'deleted';
    if (current.latestObservationId !== null && current.latestObservationId >= input.observationId) {
      return observation.status === 'not_found' ? 'free' : 'charged';
    }
    if (observation.subscriptionId !== input.subscriptionId) return 'paused'; // detached by an earlier attempt
    const setLatest = () => tx.subscription.update({ where: { id: input.subscriptionId }, data: { latestObservationId: input.observationId } });
    if (observation.status === 'not_found') {
      await setLatest();
      return 'free';
    }
    const price = planOf(account.plan).rates.monitoring;
    const paid = !account.paused && (await tryCharge(tx, {
      accountId: sub.accountId, amount: price, subscriptionId: input.subscriptionId, kind: 'monitoring', note: `observation ${input.observationId}`,
    })) !== null;
    if (!paid) {
      await pauseAccountSubscriptions(tx, sub.accountId);
      await tx.observation.update({ where: { id: input.observationId }, data: { subscriptionId: null } });
      return 'paused';
    }
    await setLatest();
    return 'charged';
  }, TX_OPTIONS);
}
