/**
 * Monitoring runs: one scheduled observation of a subscription, paid for before its page is read
 * (api-spec.md "Subscription status", "Charging rules": monitoring is charged per delivered
 * observation). A run
 * 1. starts: under the account's lock the monitoring price is charged (reserved) with a ledger
 *    entry keyed by the run (`run_key`), or nothing happens because the subscription is gone, the
 *    account is disabled, or its subscriptions are paused / the balance cannot cover the price
 *    (then every subscription of the account pauses, as a delivery the balance cannot cover did);
 * 2. stores its observation in the same transaction that links it to the reserved charge, makes
 *    it the subscription's latest (a `not_found` observation refunds the reservation: 40402 is never
 *    charged) and judges it by the subscription's alert rules (core/alerts.ts) — so no observation
 *    of a subscription is ever stored unpaid, in history or anywhere, and each fires its rules once;
 * 3. or, when the read fails (blocked, unavailable) or the subscription was deleted meanwhile, is
 *    refunded.
 * Every step is idempotent under activity retries: the run key is unique in the ledger, a refund
 * is keyed `<run key>:refund`, and a run that already stored its observation returns it.
 */
import type { Db } from './db/db.js';
import type { Prisma, PrismaClient } from './db/prisma.js';
import { recordObservationAlerts, recordedAlertsOf, type RecordedChanges } from './alerts.js';
import { credit, tryCharge } from './ledger.js';
import { insertObservation, isForeignKeyViolation } from './observations.js';
import { planOf } from './pricing.js';
import type { Product } from './product.js';
import { TX_OPTIONS, lockAccount, pauseAccountSubscriptions, runPrice } from './subscriptions.js';
import type { MonitoringRunStart as RunStart, RunDelivery } from './domain/subscription-messages.js';

type Tx = Prisma.TransactionClient;

/** Longest run key (`ledger_entries.run_key` is VARCHAR(96), the refund adds `:refund`). */
export const MAX_RUN_KEY_LENGTH = 88;

/** Why a run's observation cannot be stored; the read is then refunded, never retried. */
export class MonitoringRunError extends Error {
  override name = 'MonitoringRunError';
  constructor(readonly reason: 'not_reserved' | 'refunded' | 'deleted', runKey: string) {
    super(`monitoring run ${runKey}: ${reason === 'deleted' ? 'subscription deleted' : reason.replace('_', ' ')}`);
  }
}

/** The run's reserved charge, locked when `lock` (callers hold the account's lock first). */
export async function reservationOf(tx: Tx | PrismaClient, runKey: string, lock: boolean) {
  type Row = { id: bigint; account_id: number; subscription_id: number | null; amount: string; observation_id: bigint | null; pages_delivered: number };
  // `pages_delivered`: the search pages a keyword run delivered (0 for product runs and open runs).
  const rows = lock
    ? await tx.$queryRaw<Row[]>`
        SELECT id, account_id, subscription_id, amount::text AS amount, observation_id, cardinality(search_observation_ids) AS pages_delivered
        FROM ledger_entries WHERE run_key = ${runKey} FOR UPDATE`
    : await tx.$queryRaw<Row[]>`
        SELECT id, account_id, subscription_id, amount::text AS amount, observation_id, cardinality(search_observation_ids) AS pages_delivered
        FROM ledger_entries WHERE run_key = ${runKey}`;
  return rows[0];
}

const refundKey = (runKey: string) => `${runKey}:refund`;

export async function isRefunded(tx: Tx | PrismaClient, runKey: string): Promise<boolean> {
  return (await tx.ledgerEntry.count({ where: { runKey: refundKey(runKey) } })) > 0;
}

/**
 * Credits the reserved amount back with its `refund` entry and settles the reservation as
 * `refunded` (core/reservations.ts); the caller holds the account's lock.
 */
export async function refund(tx: Tx, reservation: { account_id: number; subscription_id: number | null; amount: string }, runKey: string, note: string): Promise<void> {
  // The reservation's entry holds the charge as a negative amount.
  await credit(tx, {
    accountId: reservation.account_id, amount: reservation.amount.replace(/^-/, ''), kind: 'refund',
    subscriptionId: reservation.subscription_id, runKey: refundKey(runKey), note,
  });
  await tx.$executeRaw`UPDATE ledger_entries SET settlement = 'refunded', settled_at = now() WHERE run_key = ${runKey}`;
}

/**
 * Starts a run of the subscription under its account's lock (see the module comment). With
 * `reserve: false` it only reports whether the subscription may run (`active`), charging nothing.
 * A retry of a run that was already reserved answers `reserved` and charges nothing more.
 * @param input.runKey unique per run (≤ MAX_RUN_KEY_LENGTH characters), e.g. workflow run id + counter.
 */
export async function startMonitoringRun(db: Db, input: { subscriptionId: number; runKey: string; reserve: boolean; pages?: number }): Promise<RunStart> {
  if (input.runKey.length > MAX_RUN_KEY_LENGTH) throw new Error(`run key longer than ${MAX_RUN_KEY_LENGTH} characters`);
  return db.prisma.$transaction(async (tx): Promise<RunStart> => {
    const sub = await tx.subscription.findUnique({ where: { id: input.subscriptionId }, select: { accountId: true } });
    if (!sub) return 'deleted';
    const account = await lockAccount(tx, sub.accountId);
    if (!account) return 'deleted';
    if (input.reserve && (await reservationOf(tx, input.runKey, false))) return 'reserved';
    if (account.disabled) return 'account_disabled';
    const current = await tx.subscription.findUnique({ where: { id: input.subscriptionId }, select: { status: true, kind: true, pages: true } });
    if (!current) return 'deleted';
    if (account.paused || current.status === 'paused_balance') return 'paused_balance';
    if (!input.reserve) return 'active';
    // A keyword run is charged for the pages its monitor will read (its settings, given by the monitor).
    const pages = current.kind === 'search' ? (input.pages ?? current.pages ?? 1) : null;
    const charged = await tryCharge(tx, {
      accountId: sub.accountId, amount: runPrice(planOf(account.plan).rates, { kind: current.kind, pages }), kind: 'monitoring',
      subscriptionId: input.subscriptionId, runKey: input.runKey, note: pages === null ? 'monitoring run' : `keyword monitoring run, ${pages} page${pages === 1 ? '' : 's'}`,
    });
    if (charged === null) {
      await pauseAccountSubscriptions(tx, sub.accountId);
      return 'paused_balance';
    }
    return 'reserved';
  }, TX_OPTIONS);
}

/** What a reserved run has read so far: nothing yet (`open`), or its stored observation and the change events it recorded. */
export type RunRead = { state: 'open' } | { state: 'read'; observationId: bigint; status: string; changes: RecordedChanges | null };

/**
 * Checks, before a page is read for the run, that the run is reserved, not refunded, and that its
 * subscription still exists; a run that already stored its observation (an earlier attempt whose
 * result was lost) returns it, so the page is not read twice.
 * @throws MonitoringRunError when the page must not be read.
 */
export async function monitoringRunRead(db: Db, input: { subscriptionId: number; runKey: string }): Promise<RunRead> {
  const reservation = await reservationOf(db.prisma, input.runKey, false);
  if (!reservation) throw new MonitoringRunError('not_reserved', input.runKey);
  if (reservation.observation_id !== null) {
    const observation = await db.prisma.observation.findUnique({ where: { id: reservation.observation_id }, select: { status: true } });
    const changes = await recordedAlertsOf(db.prisma, input.subscriptionId, reservation.observation_id);
    return { state: 'read', observationId: reservation.observation_id, status: observation?.status ?? 'ok', changes };
  }
  if (await isRefunded(db.prisma, input.runKey)) throw new MonitoringRunError('refunded', input.runKey);
  if (!(await db.prisma.subscription.findUnique({ where: { id: input.subscriptionId }, select: { id: true } }))) {
    throw new MonitoringRunError('deleted', input.runKey);
  }
  return { state: 'open' };
}

/**
 * Stores the observation read for a reserved run, in one transaction under the account's lock:
 * the observation is inserted attached to the subscription, linked to the run's charge, made the
 * subscription's latest and judged by its alert rules; a `not_found` observation refunds the
 * charge. A run that already stored one returns that one instead (nothing is inserted).
 * @returns the stored observation's id, how it was paid, and the change events it recorded that
 *   are to be delivered (null: none).
 * @throws MonitoringRunError when the run is not reserved, was refunded, or its subscription was
 *   deleted meanwhile (nothing is stored; the caller refunds the run).
 */
export async function storeMonitoringObservation(
  db: Db,
  input: { subscriptionId: number; runKey: string; product: Product },
): Promise<{ observationId: bigint; delivery: RunDelivery; changes: RecordedChanges | null }> {
  try {
    return await db.prisma.$transaction(async (tx) => {
      const unlocked = await reservationOf(tx, input.runKey, false);
      if (!unlocked) throw new MonitoringRunError('not_reserved', input.runKey);
      await lockAccount(tx, unlocked.account_id);
      const reservation = (await reservationOf(tx, input.runKey, true))!;
      if (reservation.observation_id !== null) {
        const prior = await tx.observation.findUnique({ where: { id: reservation.observation_id }, select: { status: true } });
        const changes = await recordedAlertsOf(tx, input.subscriptionId, reservation.observation_id);
        return { observationId: reservation.observation_id, delivery: prior?.status === 'not_found' ? 'free' as const : 'charged' as const, changes };
      }
      if (await isRefunded(tx, input.runKey)) throw new MonitoringRunError('refunded', input.runKey);
      // The foreign key fails (23503) when the subscription was deleted meanwhile: nothing is stored.
      const observationId = await insertObservation(tx, input.product, input.subscriptionId);
      // Delivered: the reservation is kept (a not_found observation is refunded just below).
      await tx.$executeRaw`UPDATE ledger_entries SET observation_id = ${observationId}, settlement = 'kept', settled_at = now() WHERE id = ${reservation.id}`;
      await tx.$executeRaw`UPDATE subscriptions SET latest_observation_id = ${observationId} WHERE id = ${input.subscriptionId}`;
      if (input.product.status !== 'not_found') {
        const changes = await recordObservationAlerts(tx, { subscriptionId: input.subscriptionId, observationId, product: input.product });
        return { observationId, delivery: 'charged' as const, changes };
      }
      await refund(tx, reservation, input.runKey, 'monitoring: product not found');
      return { observationId, delivery: 'free' as const, changes: null };
    }, TX_OPTIONS);
  } catch (error) {
    if (isForeignKeyViolation(error)) throw new MonitoringRunError('deleted', input.runKey);
    throw error;
  }
}

/**
 * Refunds a run whose page was not read (every attempt failed, or the subscription was deleted):
 * the reserved charge is credited back once, with a `refund` entry. A run that stored its
 * observation keeps its charge.
 * @returns `refunded` (now or by an earlier call), `delivered` (kept), or `none` (never reserved).
 */
export async function refundMonitoringRun(db: Db, input: { runKey: string }): Promise<'refunded' | 'delivered' | 'none'> {
  return db.prisma.$transaction(async (tx) => {
    const unlocked = await reservationOf(tx, input.runKey, false);
    if (!unlocked) return 'none';
    await lockAccount(tx, unlocked.account_id);
    const reservation = (await reservationOf(tx, input.runKey, true))!;
    if (reservation.observation_id !== null || reservation.pages_delivered > 0) return 'delivered';
    if (!(await isRefunded(tx, input.runKey))) await refund(tx, reservation, input.runKey, 'monitoring: page not read');
    return 'refunded';
  }, TX_OPTIONS);
}
