/**
 * The backfill of observations stored in the layout before version 2 (one wide row per read, kept
 * as `observations_legacy` by migration 20261127100000_observations_partitioned) into the current
 * one (core/observation-codec.ts): run by the migrator after the SQL migrations, in batches of
 * `batchSize` rows by ascending id, each batch one transaction that also advances the progress
 * row `observation_backfill`, so a killed run loses at most its open batch and the next run goes
 * on from there. Ids are kept (tasks, subscriptions, ledger entries and change events point at
 * them). When no row is left, the legacy table and the progress row are dropped.
 *
 * The conversion is SQL (`legacyConversion`), building the same content and texts documents the
 * codec builds for a version 1 Product, so their hashes match those of later reads.
 */
import type pg from 'pg';

/** A source of rows in the legacy layout (every legacy column; `id` may come from the sequence). */
type LegacySource = string;

const CONTENT_DOC = `jsonb_build_object(
    'url', s.url, 'title', s.title, 'byline', s.byline, 'variant', s.variant, 'variants', s.variants, 'image_url', s.image_url,
    'details', s.details, 'description', NULL, 'feature_bullets', '[]'::jsonb, 'images', '[]'::jsonb, 'categories', '[]'::jsonb,
    'bsr_categories', CASE WHEN jsonb_typeof(s.bsr) = 'object' THEN jsonb_build_array(s.bsr->'category')
      || COALESCE((SELECT jsonb_agg(e.v->'category' ORDER BY e.n) FROM jsonb_array_elements(s.bsr->'subcategories') WITH ORDINALITY e(v, n)), '[]'::jsonb) END)`;

const TEXTS_DOC = `jsonb_build_object(
    'parser_version', s.parser_version, 'availability', NULL, 'delivery', NULL, 'buy_box', NULL, 'coupon', NULL,
    'list_price_currency', NULL, 'subscribe_save_currency', NULL, 'missing', '[]'::jsonb)`;

const hashOf = (doc: string) => `sha256(convert_to((${doc})::text, 'UTF8'))`;

/**
 * The two statements converting the rows of `source` (aliased `s`): the first stores their
 * content versions and texts (existing ones kept), the second their observation rows (ids kept),
 * which it finds by hash. Run both, in this order, with the same parameters.
 */
export function legacyConversion(source: LegacySource): { docs: string; rows: string } {
  const docs = `WITH src AS MATERIALIZED (${source}),
    contents AS (
      INSERT INTO product_contents (asin, marketplace, hash, doc)
      SELECT DISTINCT ON (d.asin, d.marketplace, d.hash) d.asin, d.marketplace, d.hash, d.doc
      FROM (SELECT s.asin, s.marketplace, ${hashOf(CONTENT_DOC)} AS hash, ${CONTENT_DOC} AS doc FROM src s) d
      ON CONFLICT DO NOTHING RETURNING 1
    ), texts AS (
      INSERT INTO observation_texts (hash, doc)
      SELECT DISTINCT ON (d.hash) d.hash, d.doc FROM (SELECT ${hashOf(TEXTS_DOC)} AS hash, ${TEXTS_DOC} AS doc FROM src s) d
      ON CONFLICT DO NOTHING RETURNING 1
    )
    SELECT (SELECT count(*) FROM contents)::int AS contents, (SELECT count(*) FROM texts)::int AS texts`;
  const rows = `WITH src AS MATERIALIZED (${source})
    INSERT INTO observations (id, asin, marketplace, observed_at, status, content_id, texts_id, subscription_id, price_amount, price_currency,
      bsr_rank, bsr_ranks, rating, ratings_count, quality_version)
    SELECT s.id, s.asin, s.marketplace, s.observed_at, s.status, c.id, t.id, s.subscription_id, s.price_amount, s.price_currency, s.bsr_rank,
      CASE WHEN jsonb_typeof(s.bsr) = 'object'
        THEN ARRAY(SELECT (e.v->>'rank')::int FROM jsonb_array_elements(s.bsr->'subcategories') WITH ORDINALITY e(v, n) ORDER BY e.n) END,
      s.rating, s.ratings_count, 1
    FROM src s
    JOIN product_contents c ON c.asin = s.asin AND c.marketplace = s.marketplace AND c.hash = ${hashOf(CONTENT_DOC)}
    JOIN observation_texts t ON t.hash = ${hashOf(TEXTS_DOC)}
    RETURNING id`;
  return { docs, rows };
}

const BATCH = legacyConversion(`SELECT * FROM observations_legacy WHERE id > $1::bigint ORDER BY id LIMIT $2::int`);

/** How the backfill runs. */
export interface BackfillOptions {
  /** Legacy rows per batch (one transaction each). */
  batchSize?: number;
  /** Stop after this many batches (the rest waits for the next run); default: until done. */
  maxBatches?: number;
  /** Called after each committed batch with the rows copied so far (all runs). */
  onBatch?: (copied: number) => void;
}

/** What a backfill run did: rows copied now, and whether the legacy table is gone. */
export interface BackfillReport {
  copied: number;
  done: boolean;
}

/** Legacy rows per batch by default. */
export const BACKFILL_BATCH = 5_000;

/**
 * Copies the legacy observations still to copy (see the module comment); a no-op when there is
 * no legacy table. `client` must not be inside a transaction.
 * @throws the database's error (the batches committed so far stay; the next run goes on).
 */
export async function backfillObservations(client: pg.ClientBase, options: BackfillOptions = {}): Promise<BackfillReport> {
  const size = options.batchSize ?? BACKFILL_BATCH;
  let copied = 0;
  for (let batch = 0; ; batch++) {
    const exists = await client.query<{ ok: boolean }>(`SELECT to_regclass('observations_legacy') IS NOT NULL AND to_regclass('observation_backfill') IS NOT NULL AS ok`);
    if (!exists.rows[0]?.ok) return { copied, done: true };
    if (options.maxBatches !== undefined && batch >= options.maxBatches) return { copied, done: false };
    await client.query('BEGIN');
    try {
      const progress = await client.query<{ last_id: string; copied: string }>('SELECT last_id::text, copied::text FROM observation_backfill WHERE id = 1 FOR UPDATE');
      const lastId = progress.rows[0]?.last_id ?? '0';
      await client.query(BATCH.docs, [lastId, size]);
      const inserted = await client.query<{ id: string }>(`${BATCH.rows.replace(/RETURNING id$/, 'RETURNING id::text AS id')}`, [lastId, size]);
      if (inserted.rows.length === 0) {
        const left = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM observations_legacy WHERE id > $1::bigint', [lastId]);
        if ((left.rows[0]?.n ?? 0) > 0) throw new Error(`observation backfill: ${left.rows[0]!.n} legacy rows after id ${lastId} could not be converted`);
        await client.query('DROP TABLE observations_legacy');
        await client.query('DROP TABLE observation_backfill');
        await client.query('COMMIT');
        return { copied, done: true };
      }
      const maxId = inserted.rows.reduce((m, r) => (BigInt(r.id) > m ? BigInt(r.id) : m), BigInt(lastId));
      const total = await client.query<{ copied: string }>(
        'UPDATE observation_backfill SET last_id = $1::bigint, copied = copied + $2::bigint, updated_at = now() WHERE id = 1 RETURNING copied::text',
        [maxId.toString(), inserted.rows.length],
      );
      await client.query('COMMIT');
      copied += inserted.rows.length;
      options.onBatch?.(Number(total.rows[0]?.copied ?? copied));
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
  }
}
