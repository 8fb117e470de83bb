/**
 * Observations: storing a parsed Product and turning stored rows back into API Products.
 */
import type { Db } from './db/db.js';
import type { Prisma, PrismaClient } from './db/prisma.js';
import type { Sql, Statement } from './db/sql.js';
import { OBSERVATION_JSON, productFromJson, productFromRow, rowFromProduct, type ObservationJson } from './observation-codec.js';
import type { Product } from './product.js';

/** Converts a stored row to the API's Product (core/observation-codec.ts `productFromRow`). */
export const toProduct = productFromRow;

/**
 * Stores one observation and returns its id (history carries ids, never HTML). With
 * `subscriptionId` the observation is a monitoring delivery of that subscription; if the
 * subscription was deleted meanwhile, it is stored as a plain observation.
 */
export async function storeObservation({ prisma }: Db, product: Product, subscriptionId?: number): Promise<bigint> {
  try {
    return await insertObservation(prisma, product, subscriptionId);
  } catch (error) {
    // P2003: foreign key violation, the subscription row is gone.
    if (subscriptionId === undefined || (error as { code?: string }).code !== 'P2003') throw error;
    return insertObservation(prisma, product);
  }
}

/** Inserts one observation (inside `prisma` when it is a transaction) and returns its id. */
export async function insertObservation(prisma: PrismaClient | Prisma.TransactionClient, product: Product, subscriptionId?: number): Promise<bigint> {
  const row = await prisma.observation.create({
    data: rowFromProduct(product, subscriptionId),
    select: { id: true },
  });
  return row.id;
}

/** Which stored observations of one product `readHistory` returns. */
export interface HistoryQuery {
  asin: string;
  marketplace: string;
  /** Observed at or after this instant; null: no lower bound. */
  from: Date | null;
  /** Observed before this instant; null: no upper bound. */
  before: Date | null;
  /** Rows to skip (0 to 1,000,000) and to return (1 to 1,000): api-spec.md "Limits". */
  offset: number;
  limit: number;
}

/**
 * history's statement: $1 asin, $2 marketplace, $3 from, $4 before (timestamptz or null), $5
 * offset, $6 limit. COALESCE keeps both bounds an index range on (asin, marketplace, observed_at
 * DESC, id DESC) in the prepared statement's generic plan, so the index gives the order (newest
 * first, ties newest id first) and the page is turned into JSON after OFFSET / LIMIT, never for
 * rows it skips.
 */
export const HISTORY_STATEMENT: Statement = {
  name: 'observations:history',
  text: `SELECT ${OBSERVATION_JSON} FROM (
      SELECT * FROM observations
      WHERE asin = $1 AND marketplace = $2
        AND observed_at >= COALESCE($3::timestamptz, '-infinity') AND observed_at < COALESCE($4::timestamptz, 'infinity')
      ORDER BY observed_at DESC, id DESC
      OFFSET $5::int LIMIT $6::int
    ) o
    ORDER BY o.observed_at DESC, o.id DESC`,
};

/**
 * history's read (api-spec.md "Product endpoints": stored observations of a product, newest first,
 * from every request or subscription), one prepared statement through the hot-path SQL runner; each
 * row arrives as one JSON value instead of Prisma materialising twenty columns.
 */
export async function readHistory(sql: Sql, query: HistoryQuery): Promise<Product[]> {
  const { rows } = await sql.query<{ observation: ObservationJson }>(HISTORY_STATEMENT, [
    query.asin, query.marketplace, query.from, query.before, query.offset, query.limit,
  ]);
  return rows.map((row) => productFromJson(row.observation));
}
