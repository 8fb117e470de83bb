/**
 * The search results page read (search-page-contract.md "API", "Page kinds"): the page
 * `https://www.amazon.<domain>/s?k=<keyword>&page=<n>` is loaded through the browser grid on one
 * identity after another, exactly as a product page is (worker/identity/identity-reads.ts, with a
 * search judge), parsed with `parseSearchPage` on the parse threads and stored as a SearchResults
 * observation (core/search-observations.ts). HTML never leaves this activity.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { resolveMarketplace, type Marketplace } from '../../core/marketplaces.js';
import { findRecentSearch, normalizeKeyword, storeSearchObservation } from '../../core/search-observations.js';
import { completeSearchTask } from '../../core/search-tasks.js';
import { markTaskRunning } from '../../core/tasks.js';
import type { SearchPageParse, SearchResults } from '../../core/search.js';
import { recordSourceRead, type SourceReadOutcome } from '../../core/source-reads.js';
import { BrowserGridError } from '../browser/errors.js';
import type { SourcePage } from '../browser/source-page.js';
import { PARSER_VERSION } from '../parser/version.js';
import { ReadAttemptsFailedError, readWithIdentities, type IdentityRead, type PageVerdict } from '../identity/identity-reads.js';
import type { PageParser } from '../parser/parse-pool.js';
import { NO_SOURCE_IDENTITY, SOURCE_BLOCKED, SOURCE_UNAVAILABLE } from '../../core/domain/activity-errors.js';
import type { ReadSearchPageInput, ReadSearchPageResult } from '../../core/domain/task-messages.js';
import { readDeadline, type ProductReadDeps } from './product-read.js';

/** What the search read needs: the product read's dependencies. */
export type SearchReadDeps = Pick<ProductReadDeps, 'db' | 'source' | 'identities' | 'sourceAttempts' | 'logger' | 'parser' | 'completions'>;

/**
 * The canonical URL of a results page (search-page-contract.md "SearchResults" `url`):
 * `https://www.<domain>/s?k=<keyword, URL-encoded>` plus `&page=<n>` when n > 1.
 */
export function canonicalSearchUrl(marketplace: Marketplace, keyword: string, page: number): string {
  return `https://${marketplace.domain}/s?k=${encodeURIComponent(keyword)}${page > 1 ? `&page=${page}` : ''}`;
}

/**
 * How an attempt that got a search page ended: a results page or a "No results for" page (HTTP
 * status below 400) is the read; a robot check, an interstitial, an error or degraded page, or an
 * error status is `blocked` and the read goes on with another identity.
 */
async function searchPage(page: SourcePage, marketplace: Marketplace, parser: PageParser): Promise<PageVerdict<SearchPageParse>> {
  if (page.httpStatus === 407) return { outcome: 'proxy_error', reason: 'HTTP 407' };
  const { parsed, parseMs: ms } = await parser.parseSearch(page.bytes, page.contentType, marketplace);
  const parseMs = Math.round(ms);
  if (parsed.kind === 'search' && page.httpStatus < 400) return { outcome: 'search', parsed, parseMs };
  return { outcome: 'blocked', reason: parsed.kind === 'search' ? `HTTP ${page.httpStatus}` : `${parsed.kind}: ${parsed.reason}` };
}

/** Creates the `readSearchPage` activity and the search task's completion. */
export function createSearchReadActivities({ db, source, identities, sourceAttempts, logger, parser, completions }: SearchReadDeps) {
  const inlineParser = parser;
  return {
    /**
     * Reads one results page and stores its observation; with `reuseSince`, a stored read of the
     * same keyword (case-insensitive), marketplace and page observed since then answers without a
     * read. With `taskId` the task is marked running while the page loads. A page that is not a
     * results page on every identity tried fails with a non-retryable `SourceBlocked` /
     * `SourceUnavailable` / `NoSourceIdentity` (details: the attempts); a browser that crashed or
     * could not be reached throws a retryable `SourceUnavailable`. Every read is recorded once
     * (`source_reads` with page type `search`, `retail_search_reads_total`).
     */
    async readSearchPage(input: ReadSearchPageInput): Promise<ReadSearchPageResult> {
      const marketplace = resolveMarketplace(input.marketplace);
      if (!marketplace) throw ApplicationFailure.nonRetryable(`unknown marketplace ${input.marketplace}`, 'BadInput');
      const keyword = normalizeKeyword(input.keyword);
      const { taskId, page } = input;
      if (input.reuseSince) {
        const found = await findRecentSearch(db, { keyword, marketplace: marketplace.code, page, since: new Date(input.reuseSince) });
        if (found) return { observationId: found.id.toString(), status: found.results.status, observedAt: found.results.observed_at, reused: true };
      }
      const ctx = Context.current();
      const running = taskId ? markTaskRunning(db, taskId).catch((error: unknown) => logger.warn({ err: error, taskId }, 'could not mark the task running')) : undefined;
      const heartbeat = setInterval(() => ctx.heartbeat(), 2_000);
      const fetchStart = performance.now();
      let fetchMs: number | undefined;
      const record = (outcome: SourceReadOutcome) => recordSourceRead({ db, logger }, { marketplace: marketplace.code, outcome, durationMs: fetchMs, pageType: 'search' });
      const log = logger.child({ keyword, page, marketplace: marketplace.code, ...(taskId && { taskId }) });
      let read: IdentityRead<SearchPageParse>;
      try {
        read = await readWithIdentities(
          { source, identities, attempts: sourceAttempts, ...(inlineParser && { parser: inlineParser }), logger: log },
          { marketplace, asin: '', search: { keyword, page }, signal: ctx.cancellationSignal, deadline: readDeadline(ctx.info) },
          searchPage,
        );
      } catch (error) {
        if (ctx.cancellationSignal.aborted) throw error;
        fetchMs = performance.now() - fetchStart;
        if (error instanceof ReadAttemptsFailedError) {
          await Promise.all([record(error.blocked ? 'blocked' : 'unavailable'), running]);
          log.warn({ attempts: error.attempts }, error.noIdentity ? 'no identity to read with' : 'search read failed on every identity');
          const type = error.noIdentity ? NO_SOURCE_IDENTITY : error.blocked ? SOURCE_BLOCKED : SOURCE_UNAVAILABLE;
          throw ApplicationFailure.create({ type, message: error.message, nonRetryable: true, details: [{ attempts: error.attempts }] });
        }
        const message = `search read failed: ${(error as Error).message}`;
        await Promise.all([record('unavailable'), running]);
        if (error instanceof BrowserGridError && !error.retryable) throw ApplicationFailure.nonRetryable(message, SOURCE_UNAVAILABLE);
        throw ApplicationFailure.retryable(message, SOURCE_UNAVAILABLE);
      } finally {
        clearInterval(heartbeat);
      }
      const { page: sourcePage, parsed, attempts } = read;
      fetchMs = performance.now() - fetchStart - read.parseMs;
      try {
        if (parsed.kind !== 'search') throw new Error('a search judge answered a page that is not a results page');
        const results: SearchResults = {
          keyword, marketplace: marketplace.code, page, url: canonicalSearchUrl(marketplace, keyword, page),
          observed_at: input.observedAt ?? new Date().toISOString(), parser_version: PARSER_VERSION, ...parsed.fields,
        };
        const [id] = await Promise.all([storeSearchObservation(db, results), record(results.status), running]);
        log.info({ status: results.status, items: results.items.length, parseMs: read.parseMs, loadMs: sourcePage.loadMs, attempts: attempts.length }, 'search observation stored');
        return { observationId: id.toString(), status: results.status, observedAt: results.observed_at, reused: false, attempts };
      } finally {
        sourcePage.done?.();
      }
    },

    /** Completes a search task with its observations (page order); the pages it did not read are refunded. */
    async completeSearchTask(input: { taskId: string; observationIds: string[] }): Promise<void> {
      await completeSearchTask(db, input.taskId, input.observationIds.map((id) => BigInt(id)));
      completions?.completed(input.taskId);
    },
  };
}
