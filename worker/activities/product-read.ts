/**
 * The source read: fetch the page through the browser grid on one identity after another until
 * one gets a page (worker/identity/identity-reads.ts: the page kind is decided there), parse,
 * store the observation. HTML never leaves this activity; it returns the observation id and the
 * attempts.
 */
import { Context, ApplicationFailure, type Info } from '@temporalio/activity';
import type { Logger } from '../../core/logger.js';
import type { Db } from '../../core/db/db.js';
import { canonicalProductUrl, resolveMarketplace, type Marketplace } from '../../core/marketplaces.js';
import { storeObservation } from '../../core/observations.js';
import { MonitoringRunError, monitoringRunRead, storeMonitoringObservation } from '../../core/monitoring-runs.js';
import { monitoringDeliveries } from '../../core/metrics.js';
import { finishTaskFromObservation, markTaskRunning } from '../../core/tasks.js';
import { version1Fields, type Product } from '../../core/product.js';
import { recordSourceRead, type SourceReadOutcome } from '../../core/source-reads.js';
import { BrowserGridError } from '../browser/errors.js';
// The parser's version and quality rules alone: the parser itself runs on the parse threads.
import { notFoundQuality } from '../parser/quality.js';
import { PARSER_VERSION } from '../parser/version.js';
import { ReadAttemptsFailedError, readWithIdentities, type IdentityRead, type PageSource } from '../identity/identity-reads.js';
import type { SourceIdentities } from '../identity/source-identities.js';
import type { PageParser } from '../parser/parse-pool.js';
import { MONITORING_RUN_CLOSED, NO_SOURCE_IDENTITY, SOURCE_BLOCKED, SOURCE_UNAVAILABLE } from '../../core/domain/activity-errors.js';
import type { ReadProductInput, ReadProductResult } from '../../core/domain/task-messages.js';
import type { RecordedChanges } from '../../core/alerts.js';
import type { TaskCompletions } from '../../core/task-completions.js';

/** What the activity needs of the browser grid. */
export type ProductPageSource = PageSource;

export interface ProductReadDeps {
  db: Db;
  source: ProductPageSource;
  /** The sessions and proxies reads go out with. */
  identities: SourceIdentities;
  /** SOURCE_ATTEMPTS: attempts of one read, each on another identity. */
  sourceAttempts: number;
  logger: Logger;
  /** Decodes and parses the pages read (a pool of threads, PARSE_THREADS); unset → on the activity's thread. */
  parser?: PageParser;
  /** The schedule of change-event deliveries (WEBHOOK_RETRY_DELAYS, WEBHOOK_TIMEOUT), handed to the monitor with the events. */
  webhookSchedule: { retryDelaysMs: readonly number[]; timeoutMs: number };
  /** Told of every task a read completed (an API in this process answers its live reads then). */
  completions?: Pick<TaskCompletions, 'completed'>;
}

/**
 * When this activity attempt must be over (epoch ms): its start-to-close limit from now, and the
 * schedule-to-close limit (a live read's budget) from when it was first scheduled; undefined when
 * neither is set.
 */
export function readDeadline(info: Pick<Info, 'scheduledTimestampMs' | 'scheduleToCloseTimeoutMs' | 'startToCloseTimeoutMs'>, now = Date.now()): number | undefined {
  const ends = [
    info.startToCloseTimeoutMs > 0 ? now + info.startToCloseTimeoutMs : Infinity,
    info.scheduleToCloseTimeoutMs > 0 ? info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs : Infinity,
  ];
  const end = Math.min(...ends);
  return Number.isFinite(end) ? end : undefined;
}

/** Builds a not_found Product: every other field null/empty (product-page-contract.md). */
function notFoundProduct(marketplace: Marketplace, asin: string, observedAt: string): Product {
  return {
    asin, marketplace: marketplace.code, url: canonicalProductUrl(marketplace, asin), observed_at: observedAt,
    status: 'not_found', title: null, byline: [], variant: null, variants: [], price: null, bsr: null,
    rating: null, ratings_count: null, image_url: null, details: {}, parser_version: PARSER_VERSION,
    ...version1Fields(), quality: notFoundQuality(),
  };
}

/**
 * Creates the `readProductPage` activity.
 * A read that met a robot check, an error or degraded page, an error status or a proxy failure on
 * every identity it tried (SOURCE_ATTEMPTS, within the activity's time limits) throws a
 * non-retryable ApplicationFailure (`SourceBlocked`, or `SourceUnavailable` when the last attempt
 * did not reach a page; `NoSourceIdentity` when every proxy is quarantined) whose details hold the
 * attempts; a browser that crashed or could not be reached throws a retryable `SourceUnavailable`
 * (Temporal's retries, SOURCE_READ_ATTEMPTS). A 404 or not-found page is an observation.
 * Every read is recorded once (counter + `source_reads` row, core/source-reads.ts) with its final
 * outcome, so a read that succeeded on a retry counts as a success; a failure to record never
 * fails the read.
 */
export function createProductReadActivities({ db, source, identities, sourceAttempts, logger, parser, webhookSchedule, completions }: ProductReadDeps) {
  /** The read result's `changes`: the recorded change events with their delivery schedule. */
  const changesOf = (changes: RecordedChanges | null): Pick<ReadProductResult, 'changes'> => (changes
    ? { changes: { ...changes, retryDelaysMs: [...webhookSchedule.retryDelaysMs], timeoutMs: webhookSchedule.timeoutMs } }
    : {});
  return {
    /**
     * With `subscriptionId`, the stored observation is attached to that monitoring subscription;
     * with `monitoringRun` too, the read belongs to that reserved run (core/monitoring-runs.ts): the
     * page is read only while the run is reserved and unread (a run already read returns its
     * observation), and the observation is stored paid, as the subscription's latest, and judged by
     * the subscription's alert rules: the result names the change events to deliver. A run that
     * must not be read fails with a non-retryable `MonitoringRunClosed`.
     * With `taskId`, the read also does the task's bookkeeping (workflows/product-task.ts): the task
     * is marked running while the page loads and completed from the stored observation (20000, or
     * 40402 refunded) before the activity returns; the result carries the task's status code.
     */
    async readProductPage(input: ReadProductInput): Promise<ReadProductResult> {
      const marketplace = resolveMarketplace(input.marketplace);
      if (!marketplace) throw ApplicationFailure.nonRetryable(`unknown marketplace ${input.marketplace}`, 'BadInput');
      const asin = input.asin.toUpperCase();
      const { taskId } = input;
      const run = input.monitoringRun !== undefined && input.subscriptionId !== undefined
        ? { subscriptionId: input.subscriptionId, runKey: input.monitoringRun }
        : undefined;
      if (run) {
        const read = await closedRunToFailure(() => monitoringRunRead(db, run));
        if (read.state === 'read') {
          const status = read.status as ReadProductResult['status'];
          return { observationId: read.observationId.toString(), status, delivery: status === 'not_found' ? 'free' : 'charged', ...changesOf(read.changes) };
        }
      }
      const ctx = Context.current();
      // Informational, so it runs beside the page load; it lands before the task is completed.
      const running = taskId ? markTaskRunning(db, taskId).catch((error: unknown) => logger.warn({ err: error, taskId }, 'could not mark the task running')) : undefined;
      const heartbeat = setInterval(() => ctx.heartbeat(), 2_000);
      const fetchStart = performance.now();
      let fetchMs: number | undefined;
      const record = (outcome: SourceReadOutcome) => recordSourceRead({ db, logger }, { marketplace: marketplace.code, outcome, durationMs: fetchMs });
      let read: IdentityRead;
      try {
        read = await readWithIdentities(
          { source, identities, attempts: sourceAttempts, ...(parser && { parser }), logger: logger.child({ ...(taskId && { taskId }), ...(input.subscriptionId !== undefined && { subscriptionId: input.subscriptionId }) }) },
          { marketplace, asin, signal: ctx.cancellationSignal, deadline: readDeadline(ctx.info) },
        );
      } catch (error) {
        if (ctx.cancellationSignal.aborted) throw error;
        fetchMs = performance.now() - fetchStart;
        if (error instanceof ReadAttemptsFailedError) {
          await Promise.all([record(error.blocked ? 'blocked' : 'unavailable'), running]);
          logger.warn({ asin, marketplace: marketplace.code, ...(taskId && { taskId }), attempts: error.attempts }, error.noIdentity ? 'no identity to read with' : 'source read failed on every identity');
          const type = error.noIdentity ? NO_SOURCE_IDENTITY : error.blocked ? SOURCE_BLOCKED : SOURCE_UNAVAILABLE;
          throw ApplicationFailure.create({ type, message: error.message, nonRetryable: true, details: [{ attempts: error.attempts }] });
        }
        const message = `source read failed: ${(error as Error).message}`;
        await Promise.all([record('unavailable'), running]);
        if (error instanceof BrowserGridError && !error.retryable) throw ApplicationFailure.nonRetryable(message, SOURCE_UNAVAILABLE);
        throw ApplicationFailure.retryable(message, SOURCE_UNAVAILABLE);
      } finally {
        clearInterval(heartbeat);
      }
      const { page, parsed, attempts } = read;
      fetchMs = performance.now() - fetchStart - read.parseMs;
      const observedAt = new Date().toISOString();
      const log = logger.child({ asin, marketplace: marketplace.code, httpStatus: page.httpStatus, loadMs: page.loadMs });
      try {
        // Where the activity's time goes besides the page load (ms), logged with the observation.
        const timings = { waitMs: Math.round(fetchMs - page.loadMs), parseMs: read.parseMs, storeMs: 0, attempts: attempts.length };
        /** Stores the observation (and records the read beside it), then completes the task if any. */
        const finish = async (product: Product, outcome: SourceReadOutcome): Promise<ReadProductResult> => {
          const storeStart = performance.now();
          if (run) {
            const [stored] = await Promise.all([closedRunToFailure(() => storeMonitoringObservation(db, { ...run, product })), record(outcome)]);
            monitoringDeliveries.inc({ outcome: stored.delivery });
            timings.storeMs = Math.round(performance.now() - storeStart);
            return { observationId: stored.observationId.toString(), status: product.status, delivery: stored.delivery, attempts, ...changesOf(stored.changes) };
          }
          const [id] = await Promise.all([storeObservation(db, product, input.subscriptionId), record(outcome), running]);
          const statusCode = taskId ? (await finishTaskFromObservation(db, taskId, id)).statusCode : undefined;
          if (taskId) completions?.completed(taskId);
          timings.storeMs = Math.round(performance.now() - storeStart);
          return { observationId: id.toString(), status: product.status, ...(statusCode === undefined ? {} : { statusCode }), attempts };
        };
        // The identity read returns a product page or a not-found page (a 404 of any kind is one).
        if (parsed.kind !== 'product' || page.httpStatus === 404) {
          const result = await finish(notFoundProduct(marketplace, asin, observedAt), 'not_found');
          log.info(timings, 'product not found');
          return result;
        }
        const product: Product = {
          asin, marketplace: marketplace.code, url: canonicalProductUrl(marketplace, asin), observed_at: observedAt,
          ...parsed.fields, parser_version: PARSER_VERSION,
        };
        const result = await finish(product, product.status);
        log.info({ status: product.status, ...timings }, 'observation stored');
        return result;
      } finally {
        // Parsed and stored: Chromium may tear the page down now (it competed with both before).
        page.done?.();
      }
    },
  };
}

/** Runs `fn`, turning a MonitoringRunError into the non-retryable `MonitoringRunClosed` failure. */
async function closedRunToFailure<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof MonitoringRunError) throw ApplicationFailure.nonRetryable(error.message, MONITORING_RUN_CLOSED);
    throw error;
  }
}
