/**
 * The record of source reads: every read increments the Prometheus counter
 * `retail_source_reads_total{marketplace,outcome}` of this process (a search results page:
 * `retail_search_reads_total`) and inserts a `source_reads` row (its `page_type`), which GET /v1/appendix/status aggregates over 24 hours across every worker process.
 * Rows older than `SOURCE_READ_RETENTION_MS` (7 days) are deleted opportunistically, at most once
 * per `PRUNE_EVERY_MS` (1 hour) per process, by the call that records a read.
 */
import type { Db } from './db/db.js';
import type { Logger } from './logger.js';
import { MARKETPLACE_CODES } from './marketplaces.js';
import { searchReads, sourceReads } from './metrics.js';

/**
 * Outcomes of one read: the page was read (`ok`, `no_bsr`, `not_found`; a search page: `ok`,
 * `no_results`) or it was not (`blocked`, `unavailable`).
 */
export type SourceReadOutcome = 'ok' | 'no_bsr' | 'not_found' | 'no_results' | 'blocked' | 'unavailable';

/** The outcomes that count as a successful source read in the status success rate. */
export const SUCCESSFUL_OUTCOMES: readonly SourceReadOutcome[] = ['ok', 'no_bsr', 'not_found', 'no_results'];

/** What a read read: a product page, or a search results page (counted apart). */
export type PageType = 'product' | 'search';

/** How long `source_reads` rows are kept (ms); the status looks at 24 hours only. */
export const SOURCE_READ_RETENTION_MS = 7 * 24 * 3_600_000;

/** Least time between two prunes of old rows by one process (ms). */
export const PRUNE_EVERY_MS = 3_600_000;

let lastPruneAt = 0;

/** One read to record: marketplace code, outcome, and how long the page fetch took (ms) when known. */
export interface SourceReadRecord {
  marketplace: string;
  outcome: SourceReadOutcome;
  durationMs?: number | null;
  /** Default `product`. */
  pageType?: PageType;
}

/**
 * Records one source read: increments the counter, inserts the row and, when due, prunes old rows.
 * Never throws: a failed insert or prune is logged at `error` / `warn` and the read goes on.
 */
export async function recordSourceRead(deps: { db: Db; logger: Logger }, read: SourceReadRecord): Promise<void> {
  const pageType = read.pageType ?? 'product';
  (pageType === 'search' ? searchReads : sourceReads).inc({ marketplace: read.marketplace, outcome: read.outcome });
  const durationMs = read.durationMs == null ? null : Math.max(0, Math.round(read.durationMs));
  try {
    await deps.db.prisma.sourceRead.create({ data: { marketplace: read.marketplace, outcome: read.outcome, durationMs, pageType } });
  } catch (error) {
    deps.logger.error({ err: error, marketplace: read.marketplace, outcome: read.outcome }, 'could not record the source read');
    return;
  }
  if (Date.now() - lastPruneAt < PRUNE_EVERY_MS) return;
  lastPruneAt = Date.now();
  try {
    await pruneSourceReads(deps.db);
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not prune old source reads');
  }
}

/**
 * Deletes `source_reads` rows read before `now - olderThanMs` (default 7 days). One range scan of
 * the (marketplace, read_at) index per marketplace.
 * @returns the number of rows deleted.
 */
export async function pruneSourceReads(db: Db, olderThanMs: number = SOURCE_READ_RETENTION_MS, now: Date = new Date()): Promise<number> {
  const { count } = await db.prisma.sourceRead.deleteMany({
    where: { marketplace: { in: [...MARKETPLACE_CODES] }, readAt: { lt: new Date(now.getTime() - olderThanMs) } },
  });
  return count;
}
