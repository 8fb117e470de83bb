/**
 * Keyword monitoring runs (search-page-contract.md "API", Monitoring): a run of a keyword
 * subscription is one search task's result — the results pages 1..`pages` of its keyword — paid
 * before anything is read, like a product run (core/monitoring-runs.ts, which starts and refunds
 * both): `startMonitoringRun` reserves the monitoring search price per page; the pages are read and
 * stored as SearchResults (the search read activity); then `deliverKeywordRun`, in one transaction
 * under the account's lock, attaches the pages to the subscription, settles the reservation as kept
 * with the pages it paid for, makes them the subscription's latest and judges its rank rules
 * (core/alerts.ts `recordRankAlerts`). Until then the pages are plain search observations, never a
 * delivery of the subscription: a run refunded meanwhile (a page failed, the subscription deleted,
 * the reconciler) delivers nothing.
 *
 * A run whose page 1 has no results reads no further page; the pages it did not read are refunded
 * (entry `<run key>:unread`), as a search task's are. Idempotent under activity retries: a run already delivered returns the events it
 * recorded.
 */
import type { Db } from './db/db.js';
import { recordRankAlerts, recordedRankAlertsOf, type RecordedChanges } from './alerts.js';
import { credit } from './ledger.js';
import { MonitoringRunError, isRefunded, reservationOf } from './monitoring-runs.js';
import { isForeignKeyViolation } from './observations.js';
import { searchResultsById } from './search-observations.js';
import { TX_OPTIONS, lockAccount } from './subscriptions.js';

/**
 * Delivers a reserved keyword run's pages (page 1 first; see the module comment).
 * @returns the change events to deliver (null: none fired, or the subscription has no alert_url).
 * @throws MonitoringRunError when the run is not reserved, was refunded, or its subscription was
 *   deleted meanwhile (nothing is delivered; the caller refunds the run); Error when a page is not
 *   stored (retried).
 */
export async function deliverKeywordRun(
  db: Db,
  input: { subscriptionId: number; runKey: string; reservedPages: number; searchObservationIds: readonly bigint[] },
): Promise<RecordedChanges | null> {
  if (input.searchObservationIds.length === 0) throw new Error(`keyword run ${input.runKey}: no page to deliver`);
  // The pages were stored by earlier statements: read them before taking the account's lock.
  const stored = await searchResultsById(db, input.searchObservationIds);
  const pages = input.searchObservationIds.map((id) => {
    const results = stored.get(id);
    if (!results) throw new Error(`keyword run ${input.runKey}: search observation ${id} is not stored`);
    return { id, results };
  });
  const ids = input.searchObservationIds.map(String);
  try {
    return await db.prisma.$transaction(async (tx) => {
      const unlocked = await reservationOf(tx, input.runKey, false);
      if (!unlocked) throw new MonitoringRunError('not_reserved', input.runKey);
      await lockAccount(tx, unlocked.account_id);
      const reservation = await tx.ledgerEntry.findUnique({ where: { runKey: input.runKey }, select: { id: true, searchObservationIds: true } });
      const delivered = reservation?.searchObservationIds[0];
      if (delivered !== undefined) return recordedRankAlertsOf(tx, input.subscriptionId, delivered);
      if (await isRefunded(tx, input.runKey)) throw new MonitoringRunError('refunded', input.runKey);
      if (!(await tx.subscription.findUnique({ where: { id: input.subscriptionId }, select: { id: true } }))) {
        throw new MonitoringRunError('deleted', input.runKey);
      }
      // The foreign key fails (23503) when the subscription is deleted meanwhile: nothing is delivered.
      await tx.$executeRaw`UPDATE search_observations SET subscription_id = ${input.subscriptionId} WHERE id = ANY(${ids}::text[]::bigint[])`;
      await tx.$executeRaw`UPDATE ledger_entries SET search_observation_ids = ${ids}::text[]::bigint[], settlement = 'kept', settled_at = now() WHERE id = ${reservation!.id}`;
      await tx.$executeRaw`UPDATE subscriptions SET latest_search_observation_ids = ${ids}::text[]::bigint[] WHERE id = ${input.subscriptionId}`;
      const unread = unreadRefund(unlocked.amount, input.reservedPages, ids.length);
      if (unread !== null) {
        await credit(tx, {
          accountId: unlocked.account_id, amount: unread, kind: 'refund', subscriptionId: input.subscriptionId,
          runKey: `${input.runKey}:unread`, note: `keyword monitoring: ${input.reservedPages - ids.length} page(s) not read`,
        });
      }
      return recordRankAlerts(tx, { subscriptionId: input.subscriptionId, pages });
    }, TX_OPTIONS);
  } catch (error) {
    if (isForeignKeyViolation(error)) throw new MonitoringRunError('deleted', input.runKey);
    throw error;
  }
}

/**
 * The USD text to give back for the pages a run reserved but did not read (`reserved` the reserved
 * entry's amount, negative; the price per page is that amount over the pages reserved, exact in
 * micro-dollars), or null when every page was read.
 */
export function unreadRefund(reserved: string, reservedPages: number, pagesRead: number): string | null {
  if (pagesRead >= reservedPages) return null;
  const micros = Math.round(Math.abs(Number(reserved)) * 1e6);
  const back = (micros / reservedPages) * (reservedPages - pagesRead);
  return (Math.round(back) / 1e6).toFixed(6);
}
