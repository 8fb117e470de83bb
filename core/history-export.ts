/**
 * Reads of the history export (`GET /v1/retail/product/history/export`): how many observations of
 * a product fall in the range, then the range in pages, newest first (the history order), each
 * page one statement continuing after the last row of the previous one (observed_at, id), so an
 * export of any length runs in constant memory and reads every index entry once.
 */
import type { Sql, Statement } from './db/sql.js';
import { OBSERVATION_PAGE_SELECT, productsOfPage, type ObservationPage } from './observation-codec.js';
import type { Product } from './product.js';

/** The observations of one product exported: `from <= observed_at < before` (from null: no bound). */
export interface ExportRange {
  asin: string;
  marketplace: string;
  from: Date | null;
  before: Date;
}

const COUNT: Statement = {
  name: 'history-export:count',
  text: `SELECT count(*)::int AS n FROM observations
    WHERE asin = $1 AND marketplace = $2 AND observed_at >= COALESCE($3::timestamptz, '-infinity') AND observed_at < $4::timestamptz`,
};

/** Observations in the range. */
export async function countExportRows(sql: Sql, range: ExportRange): Promise<number> {
  return (await sql.query<{ n: number }>(COUNT, [range.asin, range.marketplace, range.from, range.before])).rows[0]?.n ?? 0;
}

const PAGE: Statement = {
  name: 'history-export:page',
  text: `WITH page AS MATERIALIZED (
      SELECT * FROM observations
      WHERE asin = $1 AND marketplace = $2 AND observed_at >= COALESCE($3::timestamptz, '-infinity')
        AND (observed_at, id) < ($4::timestamptz, $5::bigint)
      ORDER BY observed_at DESC, id DESC
      LIMIT $6::int
    ) ${OBSERVATION_PAGE_SELECT},
    (SELECT observed_at FROM page ORDER BY observed_at, id LIMIT 1) AS at, (SELECT id::text FROM page ORDER BY observed_at, id LIMIT 1) AS row_id`,
};

/** Where a page ends: the last row's (observed_at, id). */
export interface ExportCursor {
  at: Date;
  id: string;
}

/**
 * The page of the range after `cursor` (null: from the start of the range), at most `limit`
 * Products, newest first, with the cursor of its last row.
 */
export async function readExportPage(sql: Sql, range: ExportRange, cursor: ExportCursor | null, limit: number): Promise<{ products: Product[]; next: ExportCursor | null }> {
  const start = cursor ?? { at: range.before, id: '0' };
  const { rows } = await sql.query<ObservationPage & { at: Date | null; row_id: string | null }>(PAGE, [
    range.asin, range.marketplace, range.from, start.at, start.id, limit,
  ]);
  const page = rows[0];
  return { products: productsOfPage(page), next: page?.at && page.row_id ? { at: page.at, id: page.row_id } : null };
}
