/**
 * Availability per marketplace (GET /v1/appendix/status and GraphQL `status`; api-spec.md "Other
 * result objects": status per marketplace). Aggregates only, over the last 24 hours:
 *
 * - `success_rate_24h`: share of source reads (`source_reads`, core/source-reads.ts) whose outcome
 *   is `ok`, `no_bsr` or `not_found`; `blocked` and `unavailable` are failures. Null without reads.
 * - `median_completion_minutes_24h`: median minutes from task_post to completion of the task_post
 *   tasks completed (state `completed`) in the last 24 hours; null when there are none.
 * - `queued_jobs`: tasks (task_post and live, product and search) queued or running now.
 * - `search_reads_24h`, `search_success_rate_24h`: search results page reads (`page_type` search),
 *   counted apart: the product figures and the classification are of product page reads.
 * - `available` / `status`: `classifyMarketplace` (thresholds below).
 *
 * Three SQL queries whatever the number of marketplaces. The endpoints (REST and GraphQL, both
 * answering without authentication) read one `cachedMarketplaceStatuses` per app (api/app.ts):
 * computed at most once per STATUS_CACHE_MS, whatever the number of callers or GraphQL aliases.
 */
import type { Db } from '../../core/db/db.js';
import { IntervalCache } from '../../core/interval-cache.js';
import { MARKETPLACE_CODES, type MarketplaceCode } from '../../core/marketplaces.js';
import { SUCCESSFUL_OUTCOMES } from '../../core/source-reads.js';

/** The spec's availability values. */
export type MarketplaceAvailability = 'operational' | 'degraded' | 'unavailable' | 'unknown';

/** Fewer source reads than this in 24 hours is "not enough recent data": `available: null`, `unknown`. */
export const MIN_READS_24H = 10;
/** Success rate (0..1) at or above which a marketplace is `operational` (unless it is slow, below). */
export const OPERATIONAL_SUCCESS_RATE = 0.95;
/** Success rate (0..1) at or above which a marketplace is at least `degraded`; below it is `unavailable`. */
export const DEGRADED_SUCCESS_RATE = 0.5;
/** Median task_post completion (minutes) above which an otherwise operational marketplace is `degraded`. */
export const SLOW_MEDIAN_MINUTES = 30;

/** The 24-hour window of the status (ms). */
export const STATUS_WINDOW_MS = 24 * 3_600_000;

/** What the classification looks at: read count and success rate (0..1, null without reads) and median minutes (null when none). */
export interface MarketplaceSignals {
  reads: number;
  successRate: number | null;
  medianMinutes: number | null;
}

/**
 * Classifies one marketplace:
 * - reads < MIN_READS_24H (10) → `{ available: null, status: 'unknown' }`;
 * - success rate ≥ OPERATIONAL_SUCCESS_RATE (0.95) and median ≤ SLOW_MEDIAN_MINUTES (30) or no
 *   completed task → `operational`, available;
 * - success rate ≥ DEGRADED_SUCCESS_RATE (0.5) → `degraded`, available (this includes a ≥ 0.95
 *   rate with a median above 30 minutes);
 * - below 0.5 → `unavailable`, not available.
 */
export function classifyMarketplace(signals: MarketplaceSignals): { available: boolean | null; status: MarketplaceAvailability } {
  if (signals.reads < MIN_READS_24H || signals.successRate === null) return { available: null, status: 'unknown' };
  const slow = signals.medianMinutes !== null && signals.medianMinutes > SLOW_MEDIAN_MINUTES;
  if (signals.successRate >= OPERATIONAL_SUCCESS_RATE && !slow) return { available: true, status: 'operational' };
  if (signals.successRate >= DEGRADED_SUCCESS_RATE) return { available: true, status: 'degraded' };
  return { available: false, status: 'unavailable' };
}

/** One result row of GET /v1/appendix/status. Rate 0..1 (4 decimals), minutes with 2 decimals. */
export interface MarketplaceStatusRow {
  marketplace: MarketplaceCode;
  available: boolean | null;
  status: MarketplaceAvailability;
  success_rate_24h: number | null;
  source_reads_24h: number;
  median_completion_minutes_24h: number | null;
  queued_jobs: number;
  /** Search results page reads in 24 hours (not in `source_reads_24h` nor the classification). */
  search_reads_24h: number;
  /** Their share read (`ok`, `no_results`), 0..1 (4 decimals); null without reads. */
  search_success_rate_24h: number | null;
}

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;

/**
 * The status of the 12 marketplaces, in marketplace order, over the 24 hours before `now`.
 * @throws whatever Prisma throws when the database cannot be read (→ 500 envelope).
 */
export async function marketplaceStatuses(db: Db, now: Date = new Date()): Promise<MarketplaceStatusRow[]> {
  const since = new Date(now.getTime() - STATUS_WINDOW_MS);
  const codes = [...MARKETPLACE_CODES];
  const [reads, medians, queued] = await Promise.all([
    db.prisma.sourceRead.groupBy({
      by: ['marketplace', 'outcome', 'pageType'],
      // The marketplace list lets PostgreSQL use the (marketplace, read_at) index.
      where: { marketplace: { in: codes }, readAt: { gte: since } },
      _count: { _all: true },
    }),
    db.prisma.$queryRaw<{ marketplace: string; median: number }[]>`
      SELECT marketplace, percentile_cont(0.5) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM (completed_at - created_at)) / 60.0)::float8 AS median
      FROM tasks
      WHERE state = 'completed' AND endpoint = 'task_post' AND kind = 'product' AND completed_at >= ${since}
      GROUP BY marketplace`,
    db.prisma.task.groupBy({ by: ['marketplace'], where: { state: { in: ['queued', 'running'] } }, _count: { _all: true } }),
  ]);
  const success = new Set<string>(SUCCESSFUL_OUTCOMES);
  return codes.map((code) => {
    const count = (pageType: string, only?: Set<string>) => reads
      .filter((r) => r.marketplace === code && r.pageType === pageType && (!only || only.has(r.outcome)))
      .reduce((sum, r) => sum + r._count._all, 0);
    const total = count('product');
    const successRate = total > 0 ? count('product', success) / total : null;
    const searchTotal = count('search');
    const searchRate = searchTotal > 0 ? count('search', success) / searchTotal : null;
    const median = medians.find((m) => m.marketplace === code)?.median;
    const medianMinutes = median == null ? null : Number(median);
    return {
      marketplace: code,
      ...classifyMarketplace({ reads: total, successRate, medianMinutes }),
      success_rate_24h: successRate === null ? null : round(successRate, 4),
      source_reads_24h: total,
      median_completion_minutes_24h: medianMinutes === null ? null : round(medianMinutes, 2),
      queued_jobs: queued.find((q) => q.marketplace === code)?._count._all ?? 0,
      search_reads_24h: searchTotal,
      search_success_rate_24h: searchRate === null ? null : round(searchRate, 4),
    };
  });
}

/** How long a computed status is served to every caller (ms): the answer is at most this old. */
export const STATUS_CACHE_MS = 15_000;

/**
 * `marketplaceStatuses` of `db` behind a cache: `get()` computes at most once per STATUS_CACHE_MS;
 * concurrent callers share the computation in flight (core/interval-cache.ts). An app makes one
 * and hands it to both presenters (api/app.ts).
 * `get()` throws what `marketplaceStatuses` throws (not kept: the next caller computes again).
 */
export function cachedMarketplaceStatuses(db: Db): IntervalCache<MarketplaceStatusRow[]> {
  return new IntervalCache(STATUS_CACHE_MS, () => marketplaceStatuses(db));
}
