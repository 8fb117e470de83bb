/**
 * monitorSubscription: one entity workflow per monitoring subscription (workflowId
 * `monitor:<id>`, style-anchors.md "(a) Recurring per-entity jobs"). Each due tick starts a
 * monitoring run (core/monitoring-runs.ts): the monitoring price is reserved before anything is
 * read — or, when the balance cannot cover it, the whole account pauses and nothing is read; a
 * disabled account's monitor reads and charges nothing until the account is enabled. Then the
 * product page is read (the `readProductPage` activity), which stores the observation paid, as the
 * subscription's latest; a read that fails every attempt is refunded. Between ticks it waits on a
 * durable timer that a signal interrupts, so a frequency change, a resume or a delete applies at
 * once. History stays bounded by continuing as new every `continueAsNewAfter` ticks or when the
 * server suggests it.
 *
 * The database is the source of truth for the status: a paused monitor re-checks it every interval
 * (a resume signal only makes that happen at once), and a tick never reads before checking it, so
 * a lost signal delays but never breaks pausing, resuming or deleting.
 *
 * For operators (workflows/operator-view.ts): the `ResultCode` search attribute shows 40200 while
 * the subscription is paused for balance, 40102 while its account is disabled, else the last read's
 * code; `Tag` follows the subscription's tag; the current details say when the next read is due,
 * whether and why it is paused, and how many observations were taken. The state query answers
 * from the workflow's first task, which runs when the subscription is added.
 *
 * A read whose observation fired alert rules (core/alerts.ts) names the change events to deliver;
 * the monitor starts their `webhookDelivery` workflows as abandoned children (patch
 * `monitor-change-alerts`: a history recorded by a worker that did not start them replays without).
 *
 * A keyword subscription's monitor (input `search`) runs the same way: each run reserves the
 * monitoring search price per page, reads the results pages (workflows/keyword-run.ts), delivers
 * them with their rank alerts, and is refunded when a page fails.
 *
 * Monitors whose history was recorded before patch `monitor-reserve-before-read` replay their
 * recorded ticks the old way (status check, read, then charge); their next tick reserves first.
 */
import {
  ActivityFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { SEARCH_ATTRIBUTES, subscriptionSummary, subscriptionUpdates, utcText } from '../core/domain/operator-view.js';
import { pageReadQueue } from '../core/domain/queues.js';
import { STATUS } from '../core/domain/status-codes.js';
import { initialSchedule, isReadDue, nextDueAfterRead, nextWakeAt, pausedRecheckAt, withInterval } from '../core/domain/scheduling.js';
import type { MonitorOutcome, MonitorPauseReason, MonitorState, MonitorSubscriptionInput } from '../core/domain/subscription-messages.js';
import type { ActivityContract, WorkerActivities } from './activity-contract.js';
import { configureMonitorSignal, monitorStateQuery, resumeMonitorSignal, stopMonitorSignal } from './definitions.js';
import { showDetails, upsertAttributes, upsertResultCode } from './operator-view.js';
import { startChangeDeliveries } from './webhook-delivery.js';
import { readKeywordRun } from './keyword-run.js';

/** Ticks per run before continuing as new (~25 history events per tick). */
export const DEFAULT_CONTINUE_AS_NEW_AFTER = 100;

/** Ticks from this patch on reserve the monitoring price before reading. */
const RESERVE_BEFORE_READ = 'monitor-reserve-before-read';

/** From this patch on, the change events a read recorded are delivered. */
const CHANGE_ALERTS = 'monitor-change-alerts';

/** Run bookkeeping; the status check and the delivery after the read serve only pre-patch histories. */
const bookkeeping = proxyActivities<WorkerActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', maximumInterval: '30s', maximumAttempts: 20 },
});

export async function monitorSubscription(input: MonitorSubscriptionInput): Promise<MonitorOutcome> {
  const { readProductPage } = proxyActivities<ActivityContract>({
    // Reads share the page-read queue with tasks: one slot per browser page, a backlog waits in Temporal.
    taskQueue: pageReadQueue(workflowInfo().taskQueue),
    startToCloseTimeout: '90s',
    heartbeatTimeout: '15s',
    retry: { initialInterval: input.retryInitialMs, backoffCoefficient: 2, maximumAttempts: input.readAttempts },
  });
  const { subscriptionId } = input;
  const s: MonitorState = input.state ?? {
    frequency: input.frequency,
    ...initialSchedule(input, Date.now()),
    // A subscription is added paused only for its balance (`paused_balance`).
    ...(input.paused ? { pausedReason: 'balance' as const } : {}),
    deliveries: 0,
    run: 1,
    ...(input.search ? { pages: input.search.pages } : {}),
  };
  let wake = false;
  let stopped = false;

  setHandler(configureMonitorSignal, (settings) => {
    // The next read keeps its distance from the previous one, measured with the new interval;
    // if that moment has passed, the read happens at once.
    Object.assign(s, withInterval(s, settings.intervalMs, Date.now()));
    s.frequency = settings.frequency;
    if (input.search && settings.pages !== undefined) s.pages = settings.pages;
    relabel(settings.tag);
    wake = true;
  });
  setHandler(resumeMonitorSignal, () => {
    s.recheckAt = Date.now();
    wake = true;
  });
  setHandler(stopMonitorSignal, () => {
    stopped = true;
  });
  setHandler(monitorStateQuery, () => ({ ...s, nextReadAt: new Date(s.nextDueAt).toISOString() }));

  /** Brings `Tag` and `Summary` up to date after a frequency or tag change (an upsert only on change). */
  const relabel = (newTag: string | null | undefined) => {
    const attributes = workflowInfo().typedSearchAttributes;
    const tag = newTag === undefined ? attributes.get(SEARCH_ATTRIBUTES.Tag) : newTag;
    const search = input.search ? { keyword: input.search.keyword, pages: s.pages ?? input.search.pages } : undefined;
    const sub = { subscriptionId, asin: input.asin, ...(search ? { search } : {}), marketplace: input.marketplace, frequency: s.frequency, accountId: attributes.get(SEARCH_ATTRIBUTES.AccountId), tag };
    const summary = attributes.get(SEARCH_ATTRIBUTES.Summary);
    if (summary !== undefined && summary !== subscriptionSummary(sub)) upsertAttributes(subscriptionUpdates(sub));
  };

  /** The ResultCode operators see: the pause's code while paused, else the last read's (none before it). */
  const shownCode = () => (s.paused ? (s.pausedReason === 'account_disabled' ? STATUS.ACCOUNT_DISABLED : STATUS.PAYMENT_REQUIRED) : (s.lastResultCode ?? null));
  let shown: number | null = workflowInfo().typedSearchAttributes.get(SEARCH_ATTRIBUTES.ResultCode) ?? null;
  /** Brings the ResultCode attribute and the current details up to date (an upsert only on change). */
  const report = () => {
    const code = shownCode();
    if (code !== shown && upsertResultCode(code)) shown = code;
    showDetails([
      s.paused
        ? `paused: ${s.pausedReason === 'account_disabled' ? 'account disabled' : 'balance'} (${code}); status re-checked at ${utcText(s.recheckAt)}`
        : `${s.frequency}: next read at ${utcText(s.nextDueAt)}`,
      `observations taken: ${s.deliveries}; last result: ${s.lastResultCode ?? 'none yet'}`,
    ]);
  };

  /** Moves `nextDueAt` to the first slot of its schedule after now (never a burst of catch-up reads). */
  const advance = () => {
    s.nextDueAt = nextDueAfterRead(s.nextDueAt, s.intervalMs, Date.now());
  };
  const pause = (reason: MonitorPauseReason = 'balance') => {
    s.paused = true;
    s.pausedReason = reason;
    s.recheckAt = pausedRecheckAt(s.intervalMs, Date.now());
  };
  const unpause = () => {
    s.paused = false;
    delete s.pausedReason;
  };

  /** Runs started in this workflow run; with the run id, each run's key. */
  let runs = 0;

  /**
   * One tick: starts a run (reserving the price when a read is due), then reads, or refunds the
   * reservation when the read fails. @returns false when the subscription turned out to be deleted.
   */
  const reserveAndRead = async (): Promise<boolean> => {
    const due = isReadDue(s, Date.now());
    const runKey = `m:${subscriptionId}:${workflowInfo().runId}:${due ? ++runs : 0}`;
    const pages = input.search ? (s.pages ?? input.search.pages) : undefined;
    const start = await bookkeeping.startMonitoringRun({ subscriptionId, runKey, reserve: due, ...(pages === undefined ? {} : { pages }) });
    if (start === 'deleted') return false;
    if (start === 'paused_balance') pause('balance');
    else if (start === 'account_disabled') pause('account_disabled');
    else unpause();
    if (start !== 'reserved' || stopped) {
      if (start === 'reserved') await bookkeeping.refundMonitoringRun({ runKey }); // stopped meanwhile
      return true;
    }
    try {
      if (input.search) {
        const run = await readKeywordRun({ subscriptionId, runKey, keyword: input.search.keyword, marketplace: input.marketplace, pages: pages!, readAttempts: input.readAttempts, retryInitialMs: input.retryInitialMs });
        s.deliveries++;
        s.lastResultCode = STATUS.OK;
        if (run.changes) await startChangeDeliveries(run.changes, { subscriptionId, marketplace: input.marketplace });
      } else {
        const read = await readProductPage({ asin: input.asin, marketplace: input.marketplace, subscriptionId, monitoringRun: runKey });
        s.deliveries++;
        s.lastResultCode = read.status === 'not_found' ? STATUS.PRODUCT_NOT_FOUND : STATUS.OK;
        if (read.changes && patched(CHANGE_ALERTS)) await startChangeDeliveries(read.changes, { subscriptionId, asin: input.asin, marketplace: input.marketplace });
      }
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      // Every attempt failed (50301), or the subscription was deleted meanwhile: nothing stored,
      // the reservation is refunded, and the subscription stays active.
      log.warn('monitoring read failed', { subscriptionId, error: error.cause?.message ?? error.message });
      s.lastResultCode = STATUS.SOURCE_UNAVAILABLE;
      await bookkeeping.refundMonitoringRun({ runKey });
    }
    advance();
    return true;
  };

  /** Ticks recorded before RESERVE_BEFORE_READ: reads, then charges (or pauses); false when deleted. */
  const readAndDeliver = async (): Promise<boolean> => {
    let observationId: string;
    try {
      ({ observationId } = await readProductPage({ asin: input.asin, marketplace: input.marketplace, subscriptionId }));
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      // Every attempt failed (50301): nothing stored, not charged, and the subscription stays active.
      log.warn('monitoring read failed', { subscriptionId, error: error.cause?.message ?? error.message });
      s.lastResultCode = STATUS.SOURCE_UNAVAILABLE;
      advance();
      return true;
    }
    const outcome = await bookkeeping.deliverMonitoringObservation({ subscriptionId, observationId });
    if (outcome === 'deleted') return false;
    advance();
    if (outcome === 'paused') pause();
    else {
      s.deliveries++;
      s.lastResultCode = outcome === 'free' ? STATUS.PRODUCT_NOT_FOUND : STATUS.OK;
    }
    return true;
  };

  let ticks = 0;
  while (!stopped) {
    const dueAt = nextWakeAt(s);
    if (dueAt > Date.now()) {
      report();
      wake = false;
      await condition(() => wake || stopped, dueAt - Date.now());
      continue; // re-plan: the deadline may have moved, or the monitor was stopped
    }
    if (patched(RESERVE_BEFORE_READ)) {
      if (!(await reserveAndRead())) break;
    } else {
      const status = await bookkeeping.getSubscriptionStatus({ subscriptionId });
      if (status === 'deleted') break;
      if (status === 'paused_balance') {
        pause();
      } else {
        s.paused = false;
        if (isReadDue(s, Date.now()) && !stopped && !(await readAndDeliver())) break;
      }
    }
    ticks++;
    if (ticks >= (input.continueAsNewAfter ?? DEFAULT_CONTINUE_AS_NEW_AFTER) || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      if (stopped) break;
      await continueAsNew<typeof monitorSubscription>({ ...input, frequency: s.frequency, intervalMs: s.intervalMs, paused: s.paused, state: { ...s, run: s.run + 1 } });
    }
  }
  showDetails([`ended: the subscription was deleted`, `observations taken: ${s.deliveries}; last result: ${s.lastResultCode ?? 'none'}`]);
  return { subscriptionId, deliveries: s.deliveries };
}
