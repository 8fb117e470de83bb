/**
 * One keyword monitoring run inside `monitorSubscription`, once its price is reserved
 * (core/keyword-monitoring.ts): the results pages 1..`pages` of the keyword are read one after
 * another with the search read activity (`readSearchPage`, the page-read queue, never a stored
 * read: a delivery is a fresh read), sharing page 1's `observed_at` so that rank history sees them
 * as one read; a page 1 without results ends the run early. Then `deliverKeywordRun` attaches them
 * to the subscription, keeps the reservation (refunding pages not read) and judges the rank rules.
 * Any failure (a page blocked or unavailable on every attempt, the run closed meanwhile) surfaces
 * as an ActivityFailure: the monitor refunds the run.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import { pageReadQueue } from '../core/domain/queues.js';
import type { DeliverKeywordRunResult } from '../core/domain/subscription-messages.js';
import type { ActivityContract } from './activity-contract.js';

/** Delivering a run is one short transaction. */
const bookkeeping = proxyActivities<ActivityContract>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', maximumInterval: '30s', maximumAttempts: 20 },
});

/** What a keyword run reads. */
export interface KeywordRunInput {
  subscriptionId: number;
  /** The run's reservation key (`m:<subscription>:<workflow run>:<n>`). */
  runKey: string;
  keyword: string;
  marketplace: string;
  /** Results pages reserved and to read, 1-5. */
  pages: number;
  /** Attempts of one page read (SOURCE_READ_ATTEMPTS). */
  readAttempts: number;
  /** First retry delay of a failed page read, ms. */
  retryInitialMs: number;
}

/**
 * Reads and delivers one reserved keyword run (see the module comment).
 * @returns the change events to deliver.
 * @throws ActivityFailure when a page could not be read or the run could not be delivered.
 */
export async function readKeywordRun(input: KeywordRunInput): Promise<DeliverKeywordRunResult> {
  const { readSearchPage } = proxyActivities<ActivityContract>({
    taskQueue: pageReadQueue(workflowInfo().taskQueue),
    startToCloseTimeout: '90s',
    heartbeatTimeout: '15s',
    retry: { initialInterval: input.retryInitialMs, backoffCoefficient: 2, maximumAttempts: input.readAttempts },
  });
  const ids: string[] = [];
  let observedAt: string | undefined;
  for (let page = 1; page <= input.pages; page++) {
    const read = await readSearchPage({ keyword: input.keyword, marketplace: input.marketplace, page, ...(observedAt === undefined ? {} : { observedAt }) });
    ids.push(read.observationId);
    observedAt ??= read.observedAt;
    if (page === 1 && read.status === 'no_results') break;
  }
  return bookkeeping.deliverKeywordRun({ subscriptionId: input.subscriptionId, runKey: input.runKey, reservedPages: input.pages, searchObservationIds: ids });
}
