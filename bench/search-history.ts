/**
 * Search rank history at scale: `npm run bench -- search-history` (or `npx tsx
 * bench/search-history.ts [--observations 1000000 (BENCH_SEARCH_OBSERVATIONS)] [--days 365]
 * [--samples 200] [--repeats 1000]`)
 * on the PostgreSQL of DATABASE_URL_TEST (default postgresql://postgres@127.0.0.1:5432/test), in a
 * scratch database dropped at the end.
 *
 * 1. Generator: `--observations` search observations written in SQL straight into the layout of
 *    core/search-observations.ts (all indexes present), in time order: one read a day for `--days`
 *    days of each keyword (a quarter of the keywords read 3 pages, the rest 1), 50 items a page (8
 *    sponsored) drawn from the keyword's pool of 50 × pages + 30 ASINs out of 20,000 shared by all
 *    keywords; the list moves by 1-4 places a week (ASINs leave the pages and come back) and each
 *    ASIN's item content changes every 9 weeks, so most reads reference contents already stored.
 * 2. Rank history: `rankHistory` (the service's statement and grouping) of `--samples` random
 *    (keyword, ASIN of its pool) pairs over 365 days: p50 / p95 (target p50 ≤ 20 ms); then the
 *    latest read of random keywords (`latestSearch`, the row with its 50 item contents).
 * 3. Bytes per unchanged repeated observation: one 50-item list stored through
 *    `storeSearchObservation` `--repeats` more times into the full table; growth of both tables
 *    with their indexes and TOAST / reads added. Bytes per observation over the whole table beside
 *    it, and, at the other end, bytes per read when every item's content changed (a new delivery
 *    line on each card, `--repeats` / 10 reads).
 * 4. Retention: the purge's batched delete of the oldest 30 days (OBSERVATION_RETENTION_DAYS = days
 *    - 30), time and rows, the figure that decides whether the table needs partitions.
 */
import pg from 'pg';
import { applyMigrations } from '../core/db/migrator.js';
import { createDb } from '../core/db/db.js';
import { purgeExpiredData } from '../core/retention.js';
import type { SearchItem, SearchResults } from '../core/search.js';
import { asinCode, latestSearch, rankHistory, storeSearchObservation } from '../core/search-observations.js';
import { createScratchDatabase } from '../scripts/scratch-database.js';
import { envInt, fmt, p50, p95, quantile, Results } from './machine.js';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
};
// BENCH_SEARCH_OBSERVATIONS shortens the run inside `npm run bench`.
const OBSERVATIONS = flag('observations', envInt('BENCH_SEARCH_OBSERVATIONS', 1_000_000));
const DAYS = flag('days', 365);
const SAMPLES = flag('samples', 200);
const REPEATS = flag('repeats', 1000);
const ASINS = 20_000;
/** Item content versions per ASIN: one every 9 weeks. */
const VERSIONS = Math.ceil(DAYS / 63) + 1;
const DAY_MS = 86_400_000;
// Pages read per keyword (a quarter read 3), as SQL over k and as a function.
const PAGES_SQL = (k: string) => `CASE WHEN ${k} % 4 = 0 THEN 3 ELSE 1 END`;
const pagesOf = (k: number) => (k % 4 === 0 ? 3 : 1);
const KEYWORDS = Math.ceil(OBSERVATIONS / (DAYS * 1.5));
const START = Date.parse('2025-01-01T00:00:00Z');
const NOW = new Date(START + DAYS * DAY_MS);

const log = (line: string) => console.log(line);
const keywordOf = (k: number) => `bench keyword ${k}`;

const SETUP = [
  // ASINs BS00000000 … and their base-36 codes (computed here the way asinCode does; checked below).
  `CREATE UNLOGGED TABLE bench_asins AS SELECT n, a.asin,
      (SELECT sum((strpos('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', substr(a.asin, i, 1)) - 1)::numeric * 36::numeric ^ (10 - i))::bigint FROM generate_series(1, 10) i) AS code
    FROM generate_series(0, ${ASINS - 1}) n CROSS JOIN LATERAL (SELECT 'BS' || lpad(n::text, 8, '0') AS asin) a`,
  `ALTER TABLE bench_asins ADD PRIMARY KEY (n)`,
  // Item contents: VERSIONS per ASIN, id = n * VERSIONS + v + 1, shaped like a real card (~550 bytes).
  `INSERT INTO search_items (id, hash, doc)
    SELECT d.id, sha256(convert_to(d.doc::text, 'UTF8')), d.doc FROM (
      SELECT a.n * ${VERSIONS} + v + 1 AS id, jsonb_build_object(
        'asin', a.asin, 'url', 'https://www.amazon.com/dp/' || a.asin,
        'title', 'Stainless Steel Springform Pan ' || a.n || ' Non-Stick Leakproof Cheesecake Pan with Removable Bottom, ' || left(md5(a.asin), 12),
        'brand', CASE WHEN a.n % 3 = 0 THEN 'Brand ' || (a.n % 500) END,
        'price', jsonb_build_object('amount', round(9.99 + (a.n % 400) / 10.0 + v * 0.5, 2), 'currency', 'USD'),
        'list_price', CASE WHEN a.n % 4 = 0 THEN jsonb_build_object('amount', round(19.99 + (a.n % 400) / 10.0, 2), 'currency', 'USD') END,
        'rating', round(3.5 + (a.n % 15) / 10.0, 1), 'ratings_count', 100 + a.n % 9000 + v * 40,
        'bought_past_month', CASE WHEN a.n % 5 = 0 THEN 1000 WHEN a.n % 5 = 1 THEN 50 END,
        'badges', CASE WHEN a.n % 20 = 0 THEN '["Best Seller"]'::jsonb WHEN a.n % 20 = 1 THEN '["Amazon''s Choice"]'::jsonb ELSE '[]'::jsonb END,
        'prime', a.n % 3 <> 1, 'coupon', CASE WHEN a.n % 10 = 0 THEN 'Save 10% with coupon' END,
        'delivery', 'FREE delivery ' || to_char(date '2025-01-06' + v * 63, 'Dy, Mon FMDD') || ' on $35 of items shipped by Amazon',
        'image_url', 'https://m.media-amazon.com/images/I/' || left(md5('img' || a.n), 11) || '._AC_UL320_.jpg',
        'variants_count', CASE WHEN a.n % 6 = 0 THEN 2 + a.n % 9 END) AS doc
      FROM bench_asins a CROSS JOIN generate_series(0, ${VERSIONS - 1}) v) d`,
  `SELECT setval('search_items_id_seq', (SELECT max(id) FROM search_items))`,
  // Each keyword's list per week and page: position i shows pool slot (i - 1 + (page - 1) * 50 +
  // week * (1 + k % 4)) mod pool size; sponsored at positions 1-3, 17-18, 33-34 and 50.
  `CREATE UNLOGGED TABLE bench_lists AS
    SELECT k, w, p,
      array_agg(a.n * ${VERSIONS} + LEAST(w / 9, ${VERSIONS - 1}) + 1 ORDER BY i) AS ids,
      array_agg(a.code ORDER BY i) AS asins,
      array_agg(i IN (1, 2, 3, 17, 18, 33, 34, 50) ORDER BY i) AS sponsored
    FROM generate_series(0, ${KEYWORDS - 1}) k
    CROSS JOIN generate_series(0, ${Math.ceil(DAYS / 7)}) w
    CROSS JOIN LATERAL generate_series(1, ${PAGES_SQL('k')}) p
    CROSS JOIN generate_series(1, 50) i
    CROSS JOIN LATERAL (SELECT 50 * ${PAGES_SQL('k')} + 30 AS size) pool
    CROSS JOIN LATERAL (SELECT ((i - 1 + (p - 1) * 50 + w * (1 + k % 4)) % pool.size) AS slot) s
    JOIN bench_asins a ON a.n = (k * 37 + s.slot * 211) % ${ASINS}
    GROUP BY k, w, p`,
  `CREATE INDEX ON bench_lists (w)`,
];

/** Reads of days [d0, d1), every keyword and its pages, in time order. */
const readsSql = (d0: number, d1: number) => `INSERT INTO search_observations (keyword, keyword_key, marketplace, page, url, observed_at, status,
      total_results, results_text, parser_version, quality, item_ids, item_asins, item_sponsored)
    SELECT 'Bench Keyword ' || l.k, 'bench keyword ' || l.k, 'com', l.p,
      'https://www.amazon.com/s?k=Bench+Keyword+' || l.k || CASE WHEN l.p > 1 THEN '&page=' || l.p ELSE '' END,
      to_timestamp(${START / 1000} + g.d * 86400 + (l.k * 7919) % 86000), 'ok', 1000 + l.k % 50000,
      '1-48 of over ' || to_char(1000 + l.k % 50000, 'FM999,999') || ' results for "bench keyword ' || l.k || '"', 'search-1.0.0',
      jsonb_build_object('version', 2, 'cards_seen', 50, 'cards_read', 50, 'missing', '[]'::jsonb), l.ids, l.asins, l.sponsored
    FROM generate_series(${d0}, ${d1 - 1}) g(d)
    JOIN bench_lists l ON l.w = g.d / 7
    ORDER BY g.d, l.k, l.p`;

/** Bytes of both search tables with their indexes and TOAST, and the observations' row count. */
async function searchBytes(pool: pg.Pool): Promise<{ observations: number; items: number; rows: number }> {
  const { rows } = await pool.query<{ o: string; i: string; n: string }>(`SELECT pg_total_relation_size('search_observations')::text AS o,
      pg_total_relation_size('search_items')::text AS i, (SELECT count(*) FROM search_observations)::text AS n`);
  return { observations: Number(rows[0]!.o), items: Number(rows[0]!.i), rows: Number(rows[0]!.n) };
}

/** A 50-item list of the bench's shape (real contents of the seeded kind) as a parser yields it. */
function benchList(base: number): SearchItem[] {
  let organic = 0;
  return Array.from({ length: 50 }, (_, i) => {
    const n = (base + i * 211) % ASINS;
    const asin = `BS${String(n).padStart(8, '0')}`;
    const sponsored = [1, 2, 3, 17, 18, 33, 34, 50].includes(i + 1);
    return {
      position: i + 1, organic_position: sponsored ? null : ++organic, sponsored, asin, url: `https://www.amazon.com/dp/${asin}`,
      title: `Stainless Steel Springform Pan ${n} Non-Stick Leakproof Cheesecake Pan with Removable Bottom`, brand: n % 3 === 0 ? `Brand ${n % 500}` : null,
      price: { amount: 9.99 + (n % 400) / 10, currency: 'USD' }, list_price: n % 4 === 0 ? { amount: 29.99, currency: 'USD' } : null,
      rating: 4.4, ratings_count: 100 + (n % 9000), bought_past_month: n % 5 === 0 ? 1000 : null, badges: n % 20 === 0 ? ['Best Seller'] : [],
      prime: true, coupon: null, delivery: 'FREE delivery Tue, Dec 2 on $35 of items shipped by Amazon',
      image_url: `https://m.media-amazon.com/images/I/${String(n).padStart(11, 'x')}._AC_UL320_.jpg`, variants_count: null,
    };
  });
}

const results = new Results('search-history', 'postgres');
const scratch = await createScratchDatabase();
const pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
const db = createDb(scratch.url, 4);
try {
  await applyMigrations(scratch.url);
  const version = (await pool.query<{ v: string }>('SELECT version() AS v')).rows[0]!.v;
  log(`search rank history at scale: ${fmt(OBSERVATIONS, 0)} observations wanted, ${fmt(KEYWORDS, 0)} keywords × ${DAYS} daily reads (a quarter of them 3 pages), ${ASINS} ASINs × ${VERSIONS} contents; ${/PostgreSQL [\d.]+/.exec(version)?.[0]} (scratch database)`);
  let t = performance.now();
  for (const statement of SETUP) await pool.query(statement);
  const check = (await pool.query<{ asin: string; code: string }>('SELECT asin, code::text AS code FROM bench_asins WHERE n IN (0, 12345, 19999)')).rows;
  for (const { asin, code } of check) if (asinCode(asin) !== Number(code)) throw new Error(`bench ASIN code of ${asin}: SQL ${code}, asinCode ${asinCode(asin)}`);
  log(`  items and weekly lists generated in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  t = performance.now();
  let written = 0;
  for (let d = 0; d < DAYS; d += 15) {
    written += (await pool.query(readsSql(d, Math.min(DAYS, d + 15)))).rowCount ?? 0;
    process.stdout.write(`\r  ${fmt(written, 0)} observations written, ${fmt(written / ((performance.now() - t) / 1000), 0)}/s`);
  }
  log('');
  await pool.query('DROP TABLE bench_lists');
  await pool.query('VACUUM ANALYZE search_observations');
  await pool.query('VACUUM ANALYZE search_items');
  const scale = await searchBytes(pool);
  log(`  ${fmt(scale.rows, 0)} observations in ${((performance.now() - t) / 1000).toFixed(0)} s; search_observations ${fmt(scale.observations / 1e6, 0)} MB, search_items ${fmt(scale.items / 1e6, 0)} MB`);
  results.add('search observations stored', scale.rows, 'rows', { digits: 0 });
  results.add('bytes per observation, whole table', (scale.observations + scale.items) / scale.rows, 'B', { note: 'both tables, indexes, TOAST' });

  // Rank history of random (keyword, ASIN of its pool) pairs; the first 20 warm the connections.
  const pair = () => {
    const k = Math.floor(Math.random() * KEYWORDS);
    const slot = Math.floor(Math.random() * (50 * pagesOf(k) + 30));
    const n = (k * 37 + slot * 211) % ASINS;
    return { keyword: Math.random() < 0.5 ? keywordOf(k) : keywordOf(k).toUpperCase(), marketplace: 'com', asin: `BS${String(n).padStart(8, '0')}`, days: 365, now: NOW };
  };
  for (let i = 0; i < 20; i++) await rankHistory(db, pair());
  const times: number[] = [];
  let points = 0;
  let present = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = performance.now();
    const history = await rankHistory(db, pair());
    times.push(performance.now() - t0);
    points += history.length;
    present += history.filter((h) => h.position !== null).length;
  }
  log(`  rankHistory, ${SAMPLES} random (keyword, ASIN) pairs over 365 days: ${fmt(points / SAMPLES, 1)} points each, ${fmt((100 * present) / Math.max(1, points), 0)} % with a position`);
  results.add('rank history 365 daily reads p50', p50(times), 'ms', { digits: 2, target: { op: '<=', limit: 20 } });
  results.add('rank history 365 daily reads p95', p95(times), 'ms', { digits: 2 });
  results.add('rank history 365 daily reads max', quantile(times, 1), 'ms', { digits: 2 });

  const latest: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const k = Math.floor(Math.random() * KEYWORDS);
    const t0 = performance.now();
    const found = await latestSearch(db, { keyword: keywordOf(k), marketplace: 'com', page: 1 + Math.floor(Math.random() * pagesOf(k)) });
    latest.push(performance.now() - t0);
    if (found?.results.items.length !== 50) throw new Error(`latestSearch of keyword ${k}: ${found?.results.items.length} items`);
  }
  results.add('latest read (50 items) p50', p50(latest), 'ms', { digits: 2 });
  results.add('latest read (50 items) p95', p95(latest), 'ms', { digits: 2 });

  // Bytes per unchanged repeated observation, through the service's write path into the full table.
  const list = benchList(7);
  const read = (i: number): SearchResults => ({
    keyword: 'Repeated Keyword', marketplace: 'com', page: 1, url: 'https://www.amazon.com/s?k=Repeated+Keyword', observed_at: new Date(NOW.getTime() + i * 3_600_000).toISOString(),
    parser_version: 'search-1.0.0', status: 'ok', total_results: 3000, results_text: '1-48 of over 3,000 results for "Repeated Keyword"', items: list,
    quality: { version: 2, cards_seen: 50, cards_read: 50, missing: [] },
  });
  await storeSearchObservation(db, read(0));
  await pool.query('CHECKPOINT');
  const before = await searchBytes(pool);
  t = performance.now();
  for (let i = 1; i <= REPEATS; i++) await storeSearchObservation(db, read(i));
  const storeMs = (performance.now() - t) / REPEATS;
  const after = await searchBytes(pool);
  results.add('bytes per unchanged repeated observation', (after.observations + after.items - before.observations - before.items) / REPEATS, 'B', {
    target: { op: '<=', limit: 2048 }, note: `${REPEATS} repeats through storeSearchObservation; search_items grew ${after.items - before.items} B`,
  });
  results.add('storeSearchObservation, unchanged list', storeMs, 'ms', { digits: 2 });
  // The other end: every item's content changed since the last read (a delivery date moved on).
  const churned = await searchBytes(pool);
  const CHURN = Math.max(1, Math.round(REPEATS / 10));
  for (let i = 1; i <= CHURN; i++) {
    await storeSearchObservation(db, { ...read(REPEATS + i), items: list.map((item) => ({ ...item, delivery: `FREE delivery in ${i} days on $35 of items shipped by Amazon` })) });
  }
  const churnedAfter = await searchBytes(pool);
  results.add('bytes per read, all 50 item contents changed', (churnedAfter.observations + churnedAfter.items - churned.observations - churned.items) / CHURN, 'B', {
    note: `${CHURN} reads, each item's delivery line new`,
  });

  // Retention: the oldest 30 days through the purge's batched delete.
  t = performance.now();
  const report = await purgeExpiredData(db, { retentionDays: 30, observationRetentionDays: DAYS - 30, now: NOW, maxBatches: 1_000 });
  const purgeS = (performance.now() - t) / 1000;
  log(`  retention: ${fmt(report.searchObservations, 0)} observations older than ${DAYS - 30} days deleted in ${purgeS.toFixed(1)} s (batches of 1,000)`);
  results.add('retention: delete 30 days of reads', purgeS, 's', { note: `${report.searchObservations} rows` });
  const afterPurge: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = performance.now();
    await rankHistory(db, pair());
    afterPurge.push(performance.now() - t0);
  }
  results.add('rank history p50 after the purge', p50(afterPurge), 'ms', { digits: 2 });
} finally {
  await db.close();
  await pool.end();
  await scratch.drop();
}
