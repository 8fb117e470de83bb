/**
 * History at scale: `npm run bench:history -- [--rows 10000000] [--products 100000] [--days 120]
 * [--fixture-reads 100 (0: skip step 1)] [--writer-seconds 15] [--samples 300]` on the PostgreSQL of DATABASE_URL_TEST (default
 * postgresql://postgres@127.0.0.1:5432/test), in a scratch database dropped at the end.
 *
 * 1. Fixture pages: every saved product page of ../shared/fixtures is parsed (the service's parser),
 *    given version 2 values where the parser has none yet, stored once, then `--fixture-reads` more
 *    times each (a re-read of an unchanged page); bytes per additional observation = growth of all
 *    observation tables and their indexes / rows added. The same reads stored in the wide layout
 *    before version 2 (one row holding the whole Product) are measured beside it, in the same run.
 * 2. Generator: `--rows` observations of `--products` products over the last `--days` days, in
 *    time order, written in SQL straight into the layout (monthly partitions, all indexes present):
 *    the price changes on ~10 % of reads, BSR ranks on every read, the content of ~1 % of products
 *    a week (one new content version), the short texts (delivery promise, stock) every ~20 reads.
 *    Then: bytes per observation (all observation tables + indexes / rows); history (newest 100
 *    rows of one random product, the service's statement and decoding) p50 / p99; the statistics
 *    query (core/product-stats.ts, 90 days, daily points) p50 / p99; sustained inserts through the
 *    service's write path (core/observations.ts `insertObservation`) with 1 and 4 writers.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { applyMigrations } from '../core/db/migrator.js';
import { createDb } from '../core/db/db.js';
import type { Sql, Statement } from '../core/db/sql.js';
import { MARKETPLACES } from '../core/marketplaces.js';
import { insertObservation, readHistory } from '../core/observations.js';
import { readProductStats } from '../core/product-stats.js';
import { version1Fields, type Product } from '../core/product.js';
import { loadManifest } from '../replay/manifest.js';
import { createScratchDatabase } from '../scripts/scratch-database.js';
import { decodePage, parseProductPage, PARSER_VERSION } from '../worker/parser/index.js';
import { replayDir, sampleProduct, withVersion2Fields } from './pages.js';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
};
const ROWS = flag('rows', 10_000_000);
const PRODUCTS = Math.min(flag('products', 100_000), ROWS);
const DAYS = flag('days', 120);
const FIXTURE_READS = flag('fixture-reads', 100);
const WRITER_SECONDS = flag('writer-seconds', 15);
const SAMPLES = flag('samples', 300);
const DAY_MS = 86_400_000;

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const pct = (values: number[], p: number) => { const s = [...values].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!; };
const log = (line: string) => console.log(line);

/** The hot-path runner over a pool (named prepared statements, as core/db/sql.ts runs them). */
function sqlOfPool(pool: pg.Pool): Sql {
  return {
    async query<R>(statement: Statement, values: readonly unknown[] = []) {
      const r = await pool.query({ name: statement.name, text: statement.text, values: values as unknown[] });
      return { rows: r.rows as R[], rowCount: r.rowCount ?? r.rows.length };
    },
  };
}

/** Bytes of the observation tables (every partition), content versions and texts, with their indexes and TOAST. */
async function observationBytes(pool: pg.Pool): Promise<{ total: number; observations: number; contents: number; texts: number; rows: number }> {
  const { rows } = await pool.query<{ observations: string; contents: string; texts: string; rows: string }>(`SELECT
      (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('observations'))::text AS observations,
      pg_total_relation_size('product_contents')::text AS contents, pg_total_relation_size('observation_texts')::text AS texts,
      (SELECT count(*) FROM observations)::text AS rows`);
  const r = rows[0]!;
  const [o, c, t] = [Number(r.observations), Number(r.contents), Number(r.texts)];
  return { total: o + c + t, observations: o, contents: c, texts: t, rows: Number(r.rows) };
}

// The wide layout before version 2 (prisma/migrations/20261121000000_init + 20261124000000), for the side-by-side figure.
const LEGACY_DDL = `CREATE TABLE legacy_observations (
    id BIGSERIAL PRIMARY KEY, asin CHAR(10) NOT NULL, marketplace VARCHAR(8) NOT NULL, observed_at TIMESTAMPTZ(3) NOT NULL,
    status VARCHAR(16) NOT NULL, url VARCHAR(512) NOT NULL, title TEXT, byline JSONB NOT NULL DEFAULT '[]', variant TEXT,
    variants JSONB NOT NULL DEFAULT '[]', price_amount DECIMAL(18,4), price_currency CHAR(3), bsr JSONB, bsr_rank INTEGER,
    rating DECIMAL(3,2), ratings_count INTEGER, image_url TEXT, details JSONB NOT NULL DEFAULT '{}', parser_version VARCHAR(32) NOT NULL,
    subscription_id INTEGER, v2 JSONB);
  CREATE INDEX ON legacy_observations (asin, marketplace, observed_at DESC, id DESC);
  CREATE INDEX ON legacy_observations (subscription_id, observed_at DESC)`;

async function insertLegacy(pool: pg.Pool, p: Product): Promise<void> {
  const { list_price, subscribe_save_price, coupon, prime, buy_box, availability, delivery, feature_bullets, description, images, categories, rating_histogram, quality } = p;
  await pool.query(
    `INSERT INTO legacy_observations (asin, marketplace, observed_at, status, url, title, byline, variant, variants, price_amount, price_currency,
       bsr, bsr_rank, rating, ratings_count, image_url, details, parser_version, v2)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
    [p.asin, p.marketplace, p.observed_at, p.status, p.url, p.title, JSON.stringify(p.byline), p.variant, JSON.stringify(p.variants),
      p.price?.amount ?? null, p.price?.currency ?? null, p.bsr ? JSON.stringify(p.bsr) : null, p.bsr?.rank ?? null, p.rating, p.ratings_count,
      p.image_url, JSON.stringify(p.details), p.parser_version,
      JSON.stringify({ list_price, subscribe_save_price, coupon, prime, buy_box, availability, delivery, feature_bullets, description, images, categories, rating_histogram, quality })],
  );
}

/** The fixture corpus's product pages as Products (version 2 values filled where the parser has none). */
async function fixtureProducts(): Promise<Product[]> {
  const dir = replayDir();
  const manifest = await loadManifest(dir);
  const out: Product[] = [];
  for (const page of manifest.pages.values()) {
    if (!['product', 'no_bsr', 'unavailable'].includes(page.kind)) continue;
    const marketplace = MARKETPLACES.find((m) => m.domain === page.domain);
    if (!marketplace) continue;
    const parsed = parseProductPage(decodePage(fs.readFileSync(page.filePath)), marketplace);
    if (parsed.kind !== 'product') continue;
    const product: Product = {
      ...version1Fields(), asin: page.asin, marketplace: marketplace.code, url: `https://${page.domain}/dp/${page.asin}`,
      observed_at: new Date().toISOString(), ...parsed.fields, parser_version: PARSER_VERSION,
    };
    out.push(product.quality?.version >= 2 ? product : withVersion2Fields(product, out.length));
  }
  return out;
}

async function fixtureBytes(url: string): Promise<void> {
  const products = await fixtureProducts();
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const store = createDb(url, 2);
  try {
    await pool.query(LEGACY_DDL);
    const t0 = Date.now() - (FIXTURE_READS + 2) * 3_600_000;
    const read = (p: Product, i: number) => ({ ...p, observed_at: new Date(t0 + i * 3_600_000).toISOString() });
    for (const p of products) { await insertObservation(store, read(p, 0)); await insertLegacy(pool, read(p, 0)); }
    await pool.query('VACUUM ANALYZE');
    const before = await observationBytes(pool);
    const legacyBefore = Number((await pool.query(`SELECT pg_total_relation_size('legacy_observations') AS n`)).rows[0].n);
    for (let i = 1; i <= FIXTURE_READS; i++) {
      for (const p of products) { await insertObservation(store, read(p, i)); await insertLegacy(pool, read(p, i)); }
    }
    await pool.query('VACUUM ANALYZE');
    const after = await observationBytes(pool);
    const legacyAfter = Number((await pool.query(`SELECT pg_total_relation_size('legacy_observations') AS n`)).rows[0].n);
    const added = products.length * FIXTURE_READS;
    log(`fixture pages: ${products.length} product pages, each stored once then ${FIXTURE_READS} more times (${fmt(added)} additional observations)`);
    log(`  bytes per additional observation, partitioned layout (observations + product_contents + observation_texts, indexes and TOAST): ${fmt((after.total - before.total) / added, 1)}`);
    log(`    of which observations ${fmt((after.observations - before.observations) / added, 1)}, product_contents ${fmt((after.contents - before.contents) / added, 1)}, observation_texts ${fmt((after.texts - before.texts) / added, 1)}`);
    log(`  bytes per additional observation, wide layout before (one row per read, v2 fields as one jsonb): ${fmt((legacyAfter - legacyBefore) / added, 1)}`);
    log(`  content versions stored: ${(await pool.query('SELECT count(*)::int AS n FROM product_contents')).rows[0].n}, texts: ${(await pool.query('SELECT count(*)::int AS n FROM observation_texts')).rows[0].n}`);
  } finally {
    await store.close();
    await pool.end();
  }
}

/** Content documents of `products` products (one version each, a second for ~1 %/week of them). */
function contentSql(changed: number): string {
  const doc = (v: string) => `jsonb_build_object(
      'url', 'https://www.amazon.' || m.tld || '/dp/' || a.asin,
      'title', 'Product ' || g.p || ' ' || ${v} || ' ' || md5(g.p::text) || ' Stainless Steel, Dishwasher Safe, 26 cm',
      'byline', jsonb_build_array('Brand ' || (g.p % 5000)), 'variant', 'Size ' || (g.p % 7),
      'variants', (SELECT jsonb_agg(jsonb_build_object('name', 'Size ' || i, 'asin', 'BV' || lpad(((g.p * 6 + i) % 99999999)::text, 8, '0'))) FROM generate_series(1, 6) i),
      'image_url', 'https://m.media-amazon.com/images/I/' || left(md5('i' || g.p), 11) || '.jpg',
      'details', (SELECT jsonb_object_agg('detail_label_' || i, 'value ' || left(md5(g.p::text || i), 16)) FROM generate_series(1, 8) i),
      'description', (SELECT string_agg(md5(g.p::text || 'd' || i), ' ') FROM generate_series(1, 12) i),
      'feature_bullets', (SELECT jsonb_agg('Bullet ' || i || ': ' || md5(g.p::text || 'b' || i) || md5(g.p::text || 'c' || i)) FROM generate_series(1, 5) i),
      'images', (SELECT jsonb_agg('https://m.media-amazon.com/images/I/' || left(md5(g.p::text || 'img' || i), 11) || '.jpg') FROM generate_series(1, 6) i),
      'categories', jsonb_build_array('Home & Kitchen', 'Kitchen & Dining', 'Bakeware', 'Category ' || (g.p % 300)),
      'bsr_categories', jsonb_build_array('Home & Kitchen', 'Springform Pans', 'Cake Pans'))`;
  const rows = (v: number) => `SELECT g.p * 2 + ${v} + 1 AS id, a.asin, m.code AS marketplace, ${doc(`'v${v}'`)} AS doc
      FROM generate_series(0, ${PRODUCTS - 1}) g(p)
      CROSS JOIN LATERAL (SELECT 'BX' || lpad(g.p::text, 8, '0') AS asin) a
      CROSS JOIN LATERAL (SELECT CASE WHEN g.p % 5 = 0 THEN 'de' ELSE 'com' END AS code, CASE WHEN g.p % 5 = 0 THEN 'de' ELSE 'com' END AS tld) m
      ${v === 1 ? `WHERE g.p % 100 < ${changed}` : ''}`;
  return `INSERT INTO product_contents (id, asin, marketplace, hash, doc)
    SELECT id, asin, marketplace, sha256(convert_to(doc::text, 'UTF8')), doc FROM (${rows(0)} UNION ALL ${rows(1)}) x`;
}

const TEXTS = 500;
const TEXTS_SQL = `INSERT INTO observation_texts (id, hash, doc)
  SELECT i, sha256(convert_to(doc::text, 'UTF8')), doc FROM (
    SELECT i, jsonb_build_object('parser_version', '1.0.0',
      'availability', CASE WHEN i % 10 = 0 THEN jsonb_build_object('status', 'low_stock', 'text', 'Only ' || (i % 9 + 1) || ' left in stock - order soon.') ELSE jsonb_build_object('status', 'in_stock', 'text', 'In Stock') END,
      'delivery', jsonb_build_object('location', 'City ' || i, 'promise', 'FREE delivery ' || to_char(date '2026-01-01' + (i % 60), 'FMDay, FMMonth DD') || ' on orders shipped by Amazon over $35'),
      'buy_box', jsonb_build_object('seller_name', CASE WHEN i % 3 = 0 THEN 'Amazon.com' ELSE 'Seller ' || (i % 97) END, 'seller_id', NULL, 'ships_from', 'Amazon'),
      'coupon', CASE WHEN i % 10 = 1 THEN jsonb_build_object('text', 'Apply 10% coupon', 'currency', NULL) END,
      'list_price_currency', 'USD', 'subscribe_save_currency', CASE WHEN i % 3 = 0 THEN 'USD' END,
      'missing', CASE WHEN i % 4 = 0 THEN '[{"field": "subscribe_save_price", "reason": "not_on_page"}]'::jsonb ELSE '[]'::jsonb END) AS doc
    FROM generate_series(1, ${TEXTS}) i) t`;

/** Generated reads k in [k0, k1) of every product (time order: read k of all products, then k + 1). */
function readsSql(k0: number, k1: number, start: number, periodS: number, changed: number, reads: number): string {
  return `INSERT INTO observations (id, asin, marketplace, observed_at, status, content_id, texts_id, price_amount, price_currency, bsr_rank, bsr_ranks,
      rating, ratings_count, list_price, subscribe_save_price, coupon_percent, prime, sold_by_amazon, fulfilled_by_amazon, availability_quantity,
      histogram_5, histogram_4, histogram_3, histogram_2, histogram_1, quality_version, fields_read, fields_applicable)
    SELECT nextval('observations_id_seq'), 'BX' || lpad(g.p::text, 8, '0'), CASE WHEN g.p % 5 = 0 THEN 'de' ELSE 'com' END,
      to_timestamp(${start / 1000} + k.k * ${periodS} + (g.p::bigint * 7919) % ${Math.max(1, Math.floor(periodS))}),
      CASE WHEN g.p % 50 = 0 THEN 'no_bsr' ELSE 'ok' END,
      g.p * 2 + 1 + CASE WHEN g.p % 100 < ${changed} AND k.k >= ${reads} * ((g.p * 31) % 100) / 100 THEN 1 ELSE 0 END,
      1 + (g.p * 7 + k.k / 20) % ${TEXTS},
      round((5 + (g.p % 2000) / 10.0) * (1 + ((k.k + g.p % 10) / 10 % 5) * 0.03), 2), CASE WHEN g.p % 5 = 0 THEN 'EUR' ELSE 'USD' END,
      CASE WHEN g.p % 50 = 0 THEN NULL ELSE 1000 + (g.p * 37 + k.k * 11) % 200000 END,
      CASE WHEN g.p % 50 = 0 THEN NULL ELSE ARRAY[(g.p * 13 + k.k * 3) % 5000 + 1, (g.p * 7 + k.k) % 20000 + 1] END,
      3.5 + (g.p % 15) / 10.0, 100 + g.p % 5000 + k.k / 10,
      CASE WHEN g.p % 5 < 3 THEN round((5 + (g.p % 2000) / 10.0) * 1.3, 2) END, CASE WHEN g.p % 3 = 0 THEN round((5 + (g.p % 2000) / 10.0) * 0.95, 2) END,
      CASE WHEN (k.k / 30 + g.p) % 10 = 0 THEN 10 END, g.p % 3 <> 0, g.p % 2 = 0, true,
      CASE WHEN (k.k + g.p) % 17 = 0 THEN k.k % 9 + 1 END,
      55 + g.p % 20, 20, 10 - g.p % 5, 5, 10 + g.p % 5 - g.p % 20 % 10, 2, 25 + g.p % 4, 29
    FROM generate_series(${k0}, ${k1 - 1}) k(k) CROSS JOIN generate_series(0, ${PRODUCTS - 1}) g(p)`;
}

async function scale(url: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const sql = sqlOfPool(pool);
  try {
    const reads = Math.ceil(ROWS / PRODUCTS);
    const start = Date.now() - DAYS * DAY_MS;
    const periodS = (DAYS * 86_400) / reads;
    const changed = Math.min(100, Math.round((DAYS / 7) * 1));
    // Monthly partitions over the generated range (the service creates the current and next ones).
    await pool.query(`DO $$ DECLARE m date := date_trunc('month', to_timestamp(${start / 1000}) AT TIME ZONE 'UTC')::date; BEGIN
      WHILE m <= now()::date LOOP
        EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF observations FOR VALUES FROM (%L) TO (%L)', 'observations_' || to_char(m, 'YYYY_MM'),
          m::text || ' 00:00:00+00', (m + interval '1 month')::date::text || ' 00:00:00+00');
        m := (m + interval '1 month')::date;
      END LOOP; END $$`);
    let t = performance.now();
    await pool.query(contentSql(changed));
    await pool.query(`SELECT setval('product_contents_id_seq', (SELECT max(id) FROM product_contents))`);
    await pool.query(TEXTS_SQL);
    await pool.query(`SELECT setval('observation_texts_id_seq', ${TEXTS})`);
    log(`generator: ${fmt(PRODUCTS)} products, ${(await pool.query('SELECT count(*)::int AS n FROM product_contents')).rows[0].n} content versions (~1 %/week changed over ${DAYS} days: ${changed} %), ${TEXTS} texts, in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    t = performance.now();
    const chunk = Math.max(1, Math.floor(1_000_000 / PRODUCTS));
    let written = 0;
    for (let k = 0; k < reads && written < ROWS; k += chunk) {
      const k1 = Math.min(reads, k + chunk);
      written += (await pool.query(readsSql(k, k1, start, periodS, changed, reads))).rowCount ?? 0;
      process.stdout.write(`\r  ${fmt(written)} observations written, ${fmt(written / ((performance.now() - t) / 1000))}/s`);
    }
    log('');
    await pool.query('VACUUM ANALYZE');
    const bytes = await observationBytes(pool);
    log(`scale: ${fmt(bytes.rows)} observations of ${fmt(PRODUCTS)} products over ${DAYS} days (${reads} reads each), bulk-generated in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    log(`  bytes per observation (all observation tables + indexes / rows): ${fmt(bytes.total / bytes.rows, 1)}  [observations ${fmt(bytes.observations / bytes.rows, 1)}, product_contents ${fmt(bytes.contents / bytes.rows, 1)}, observation_texts ${fmt(bytes.texts / bytes.rows, 1)}; total ${fmt(bytes.total / 1e9, 2)} GB]`);
    const parts = await pool.query<{ name: string; rows: string; bytes: string }>(`SELECT c.relname AS name, c.reltuples::bigint::text AS rows, pg_total_relation_size(c.oid)::text AS bytes
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'observations'::regclass ORDER BY 1`);
    log(`  partitions: ${parts.rows.map((r) => `${r.name.slice(13)} ${fmt(Number(r.rows))} rows ${fmt(Number(r.bytes) / 1e6)} MB`).join('; ')}`);

    const product = () => { const p = Math.floor(Math.random() * PRODUCTS); return { asin: `BX${String(p).padStart(8, '0')}`, marketplace: p % 5 === 0 ? 'de' : 'com' }; };
    const time = async (fn: () => Promise<unknown>) => { const t0 = performance.now(); await fn(); return performance.now() - t0; };
    for (let i = 0; i < 20; i++) await readHistory(sql, { ...product(), from: null, before: null, offset: 0, limit: 100 });
    const history: number[] = [];
    let rows = 0;
    for (let i = 0; i < SAMPLES; i++) history.push(await time(async () => { rows += (await readHistory(sql, { ...product(), from: null, before: null, offset: 0, limit: 100 })).length; }));
    log(`  history, newest 100 rows of a random product (${SAMPLES} reads, ${fmt(rows / SAMPLES, 1)} rows each, statement + decoding): p50 ${pct(history, 50).toFixed(2)} ms, p99 ${pct(history, 99).toFixed(2)} ms`);
    const stats: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const now = new Date();
      stats.push(await time(() => readProductStats(sql, [{ ...product(), from: new Date(now.getTime() - 90 * DAY_MS), to: now, points: 'day' }])));
    }
    log(`  stats over 90 days, daily points (${SAMPLES} reads): p50 ${pct(stats, 50).toFixed(2)} ms, p99 ${pct(stats, 99).toFixed(2)} ms`);

    for (const writers of [1, 4]) {
      const store = createDb(url, writers);
      try {
        // Already-seen products: each writer's products are read once before the clock starts.
        const pool0 = Array.from({ length: 200 }, (_, i) => withVersion2Fields(sampleProduct(`BW${String(writers * 1000 + i).padStart(8, '0')}`), i));
        for (const p of pool0) await insertObservation(store, p);
        let done = 0;
        const until = performance.now() + WRITER_SECONDS * 1000;
        await Promise.all(Array.from({ length: writers }, async (_, w) => {
          for (let i = w; performance.now() < until; i += writers) {
            const p = pool0[i % pool0.length]!;
            await insertObservation(store, withVersion2Fields({ ...p, observed_at: new Date().toISOString(), price: { amount: 10 + (i % 50), currency: 'USD' } }, i));
            done++;
          }
        }));
        log(`  sustained inserts through insertObservation, ${writers} writer${writers > 1 ? 's' : ''} for ${WRITER_SECONDS} s: ${fmt(done / WRITER_SECONDS)} observations/s`);
      } finally {
        await store.close();
      }
    }
  } finally {
    await pool.end();
  }
}

const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
log(`bench:history — rows ${fmt(ROWS)}, products ${fmt(PRODUCTS)}, days ${DAYS}, fixture re-reads ${FIXTURE_READS}; load average ${load()}; ${path.basename(replayDir())} pages`);
for (const part of FIXTURE_READS > 0 ? [fixtureBytes, scale] : [scale]) {
  const db = await createScratchDatabase();
  try {
    await applyMigrations(db.url);
    if (part === fixtureBytes) {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const version = (await client.query<{ v: string }>('SELECT version() AS v')).rows[0]!.v;
      await client.end();
      log(`database: ${/PostgreSQL [\d.]+/.exec(version)?.[0]} (scratch database)`);
    }
    await part(db.url);
  } finally {
    await db.drop();
  }
}
log(`load average at the end: ${load()}`);
