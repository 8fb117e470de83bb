/**
 * Statistics over a product's history (issue "History analytics…" item 1): for an ASIN ×
 * marketplace and a window, min / max / average / last of the price and of the BSR rank with the
 * observed_at of each, the number of observations, a time series (one point per observation, or per
 * hour / day bucket holding the bucket's last observation), and the price / rank changes between
 * consecutive observations. REST (`POST /v1/retail/product/stats`) and GraphQL
 * (`product { stats series changes }`) present these results; nothing here renders or charges.
 *
 * Both reads take a list of queries and answer all of them with one SQL statement (one LATERAL
 * subquery per query over the observations index `(asin, marketplace, observed_at DESC, id DESC)`),
 * so a GraphQL page of N products costs one statement, not N. They read only the per-read columns
 * `asin`, `marketplace`, `observed_at`, `price_amount`, `price_currency`, `bsr_rank`.
 *
 * Rules (documented in docs/api.md "History analytics"):
 * - `observations` counts every observation in `[from, to)`, whatever its status.
 * - Price statistics are in one currency: that of the newest priced observation of the window;
 *   prices in another currency are left out of them and are null in the points.
 * - `min_at` / `max_at`: the newest observation holding that value; `last`: the newest value.
 * - Averages are arithmetic means of the observations (price rounded to 4 decimals, rank to 2).
 * - Points: at most MAX_STATS_POINTS, the newest, in time order; a bucket's `at` is its start (UTC).
 */
import type { Sql, Statement } from './db/sql.js';
import { MAX_STATS_POINTS, type StatsBucket } from './validation/analytics.js';

/** One product and window to read; `points`: none, one per observation (`raw`), or bucketed. */
export interface StatsQuery {
  asin: string;
  marketplace: string;
  from: Date;
  to: Date;
  points: 'none' | 'raw' | StatsBucket;
}

/** Min / max / average / last of one value over the window, with when each was observed. */
export interface ValueStats {
  min: number;
  max: number;
  avg: number;
  last: number;
  min_at: string;
  max_at: string;
  last_at: string;
}

/** Price statistics: amounts in major units of `currency` (ISO 4217). */
export interface PriceStats extends ValueStats {
  currency: string;
}

/** One point of the series: `at` (ISO 8601 UTC), price in the stats currency, BSR rank. */
export interface StatsPoint {
  at: string;
  price: number | null;
  bsr_rank: number | null;
}

/** The statistics of one query (`points` empty when the query asked for none). */
export interface ProductStats {
  asin: string;
  marketplace: string;
  from: string;
  to: string;
  observations: number;
  /** Null when no observation of the window has a price. */
  price: PriceStats | null;
  /** Null when no observation of the window has a rank. */
  bsr: ValueStats | null;
  points: StatsPoint[];
}

/** A change between two consecutive observations of the window. */
export interface ProductChange {
  field: 'price' | 'bsr_rank';
  observed_at: string;
  previous_observed_at: string;
  /** Values before and after (null: no price / no rank on that observation). */
  before: number | null;
  after: number | null;
  /** Price changes: the currency after (before when the price disappeared); null for ranks. */
  currency: string | null;
  /** after − before; null when either is null or the currencies differ. */
  delta: number | null;
  /** 100 × delta / before, rounded to 2 decimals; null when delta is null or before is 0. */
  delta_percent: number | null;
}

// asin as bpchar, the column's type: compared as text, the index on char(10) could not be used.
const KEYS = `unnest($1::bpchar[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[]) WITH ORDINALITY AS k(asin, marketplace, from_at, to_at, points, n)`;
const WINDOW = `o.asin = k.asin AND o.marketplace = k.marketplace AND o.observed_at >= k.from_at AND o.observed_at < k.to_at`;
const MS = (column: string) => `(extract(epoch FROM ${column}) * 1000)::bigint`;

/**
 * Statistics of every query in one statement: $1 asins, $2 marketplaces, $3 from, $4 to, $5 points
 * (`none`, `raw`, `hour`, `day`), $6 the points limit. One JSON row per query, in query order.
 */
export const STATS_STATEMENT: Statement = {
  name: 'product-stats:stats',
  text: `SELECT k.n, s.stats FROM ${KEYS}
    CROSS JOIN LATERAL (
      WITH w AS MATERIALIZED (
        SELECT o.observed_at, o.price_amount, o.price_currency, o.bsr_rank FROM observations o WHERE ${WINDOW}
      ), cur AS (
        SELECT price_currency FROM w WHERE price_amount IS NOT NULL ORDER BY observed_at DESC LIMIT 1
      ), v AS MATERIALIZED (
        SELECT observed_at, CASE WHEN price_currency = (SELECT price_currency FROM cur) THEN price_amount END AS price, bsr_rank FROM w
      ), agg AS (
        SELECT count(*)::int AS observations,
          min(price) AS pmin, max(price) AS pmax, round(avg(price), 4) AS pavg, max(observed_at) FILTER (WHERE price IS NOT NULL) AS plast_at,
          min(bsr_rank) AS rmin, max(bsr_rank) AS rmax, round(avg(bsr_rank), 2) AS ravg, max(observed_at) FILTER (WHERE bsr_rank IS NOT NULL) AS rlast_at
        FROM v
      )
      SELECT jsonb_build_object(
        'observations', agg.observations,
        'price', CASE WHEN agg.pmin IS NULL THEN NULL ELSE jsonb_build_object(
          'currency', (SELECT price_currency FROM cur), 'min', agg.pmin, 'max', agg.pmax, 'avg', agg.pavg,
          'last', (SELECT max(price) FROM v WHERE observed_at = agg.plast_at),
          'min_at', (SELECT ${MS('max(observed_at)')} FROM v WHERE price = agg.pmin),
          'max_at', (SELECT ${MS('max(observed_at)')} FROM v WHERE price = agg.pmax),
          'last_at', ${MS('agg.plast_at')}) END,
        'bsr', CASE WHEN agg.rmin IS NULL THEN NULL ELSE jsonb_build_object(
          'min', agg.rmin, 'max', agg.rmax, 'avg', agg.ravg,
          'last', (SELECT max(bsr_rank) FROM v WHERE observed_at = agg.rlast_at),
          'min_at', (SELECT ${MS('max(observed_at)')} FROM v WHERE bsr_rank = agg.rmin),
          'max_at', (SELECT ${MS('max(observed_at)')} FROM v WHERE bsr_rank = agg.rmax),
          'last_at', ${MS('agg.rlast_at')}) END,
        'points', CASE
          WHEN k.points = 'raw' THEN (SELECT coalesce(jsonb_agg(jsonb_build_array(${MS('p.observed_at')}, p.price, p.bsr_rank) ORDER BY p.observed_at), '[]')
            FROM (SELECT * FROM v ORDER BY observed_at DESC LIMIT $6::int) p)
          WHEN k.points IN ('hour', 'day') THEN (SELECT coalesce(jsonb_agg(jsonb_build_array(${MS('p.bucket')}, p.price, p.bsr_rank) ORDER BY p.bucket), '[]')
            FROM (SELECT DISTINCT ON (bucket) date_trunc(k.points, observed_at, 'UTC') AS bucket, price, bsr_rank FROM v
                  ORDER BY bucket DESC, observed_at DESC LIMIT $6::int) p)
          ELSE '[]'::jsonb END
      ) AS stats FROM agg
    ) s
    ORDER BY k.n`,
};

/**
 * Changes between consecutive observations of each query's window, in one statement ($1..$5 as
 * STATS_STATEMENT, $5 unused; $6 the limit): one JSON array per query of
 * `[at ms, previous at ms, price before, price after, currency before, currency after, rank before, rank after]`.
 */
export const CHANGES_STATEMENT: Statement = {
  name: 'product-stats:changes',
  text: `SELECT k.n, c.changes FROM ${KEYS}
    CROSS JOIN LATERAL (
      SELECT coalesce(jsonb_agg(jsonb_build_array(${MS('x.observed_at')}, ${MS('x.prev_at')}, x.prev_price, x.price_amount, x.prev_currency, x.price_currency, x.prev_rank, x.bsr_rank)
        ORDER BY x.observed_at, x.id), '[]') AS changes
      FROM (
        SELECT * FROM (
          SELECT o.id, o.observed_at, o.price_amount, o.price_currency, o.bsr_rank,
            lag(o.observed_at) OVER w AS prev_at, lag(o.price_amount) OVER w AS prev_price,
            lag(o.price_currency) OVER w AS prev_currency, lag(o.bsr_rank) OVER w AS prev_rank
          FROM observations o WHERE ${WINDOW}
          WINDOW w AS (ORDER BY o.observed_at, o.id)
        ) y
        WHERE y.prev_at IS NOT NULL AND (y.price_amount IS DISTINCT FROM y.prev_price OR y.price_currency IS DISTINCT FROM y.prev_currency
          OR y.bsr_rank IS DISTINCT FROM y.prev_rank)
        ORDER BY y.observed_at DESC, y.id DESC LIMIT $6::int
      ) x
    ) c
    ORDER BY k.n`,
};

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

interface ValueJson { min: number; max: number; avg: number; last: number; min_at: number; max_at: number; last_at: number }
interface StatsJson {
  observations: number;
  price: (ValueJson & { currency: string }) | null;
  bsr: ValueJson | null;
  points: [number, number | null, number | null][];
}

function valueStats(v: ValueJson): ValueStats {
  return { min: Number(v.min), max: Number(v.max), avg: Number(v.avg), last: Number(v.last), min_at: iso(v.min_at), max_at: iso(v.max_at), last_at: iso(v.last_at) };
}

function params(queries: readonly StatsQuery[]): unknown[] {
  return [
    queries.map((q) => q.asin), queries.map((q) => q.marketplace), queries.map((q) => q.from), queries.map((q) => q.to),
    queries.map((q) => q.points), MAX_STATS_POINTS,
  ];
}

/**
 * Statistics of each query, in query order, one statement for all of them (see the module comment).
 * @throws the database's error
 */
export async function readProductStats(sql: Sql, queries: readonly StatsQuery[]): Promise<ProductStats[]> {
  if (queries.length === 0) return [];
  const { rows } = await sql.query<{ n: string; stats: StatsJson }>(STATS_STATEMENT, params(queries));
  return rows.map((row, i) => {
    const q = queries[i]!;
    const s = row.stats;
    return {
      asin: q.asin, marketplace: q.marketplace, from: q.from.toISOString(), to: q.to.toISOString(), observations: s.observations,
      price: s.price ? { ...valueStats(s.price), currency: s.price.currency } : null,
      bsr: s.bsr ? valueStats(s.bsr) : null,
      points: s.points.map(([at, price, rank]) => ({ at: iso(at), price: price === null ? null : Number(price), bsr_rank: rank })),
    };
  });
}

type ChangeJson = [number, number, number | null, number | null, string | null, string | null, number | null, number | null];

/** The change of one value between two observations, or null when it did not change. */
function changeOf(field: ProductChange['field'], at: string, previousAt: string, before: number | null, after: number | null, currencies: [string | null, string | null] | null): ProductChange | null {
  const sameCurrency = !currencies || currencies[0] === currencies[1];
  if (before === after && sameCurrency) return null;
  const delta = before === null || after === null || !sameCurrency ? null : Math.round((after - before) * 1e4) / 1e4;
  return {
    field, observed_at: at, previous_observed_at: previousAt, before, after,
    currency: currencies ? (currencies[1] ?? currencies[0]) : null,
    delta, delta_percent: delta === null || before === 0 ? null : Math.round((10_000 * delta) / before!) / 100,
  };
}

/**
 * Price and BSR-rank changes between consecutive observations of each query's window (the pairs
 * inside the window), oldest first, at most MAX_STATS_POINTS (the newest); one statement for all
 * queries (`points` is ignored). A price change compares amount and currency.
 * @throws the database's error
 */
export async function readProductChanges(sql: Sql, queries: readonly StatsQuery[]): Promise<ProductChange[][]> {
  if (queries.length === 0) return [];
  const { rows } = await sql.query<{ n: string; changes: ChangeJson[] }>(CHANGES_STATEMENT, params(queries));
  return rows.map((row) => row.changes.flatMap(([at, prev, pb, pa, cb, ca, rb, ra]) => {
    const when = iso(at);
    const before = iso(prev);
    const price = changeOf('price', when, before, pb === null ? null : Number(pb), pa === null ? null : Number(pa), [cb, ca]);
    const rank = changeOf('bsr_rank', when, before, rb, ra, null);
    return [price, rank].filter((c): c is ProductChange => c !== null);
  }));
}
