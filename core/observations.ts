/**
 * The observation repository: storing a parsed Product (content version + texts + the volatile
 * row, core/observation-codec.ts) and reading stored observations back as API Products.
 */
import type { Db } from './db/db.js';
import type { Prisma, PrismaClient } from './db/prisma.js';
import type { Sql, Statement } from './db/sql.js';
import {
  INSERT_OBSERVATION, OBSERVATION_INCLUDE, OBSERVATION_JOINS, OBSERVATION_JSON, insertParams, productFromJson, productFromRow,
  type ObservationJson, type ObservationRow,
} from './observation-codec.js';
import type { Product } from './product.js';

/** Converts a stored row read with `OBSERVATION_INCLUDE` to the API's Product (core/observation-codec.ts `productFromRow`). */
export const toProduct = productFromRow;
export { OBSERVATION_INCLUDE, type ObservationRow };

/** The driver's SQLSTATE of a failed raw statement, whether Prisma wraps it or not. */
function sqlState(error: unknown): string | undefined {
  const e = error as { code?: string; meta?: { code?: string; driverAdapterError?: { cause?: { originalCode?: string; code?: string } } }; cause?: { code?: string } };
  const adapter = e.meta?.driverAdapterError?.cause;
  return adapter?.originalCode ?? e.meta?.code ?? e.cause?.code ?? (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : undefined)
    ?? (/\b(23503|23502)\b/.exec(String((error as Error)?.message ?? ''))?.[1])
    ?? (/violates foreign key constraint/.test(String((error as Error)?.message ?? '')) ? '23503' : undefined)
    ?? (/violates not-null constraint/.test(String((error as Error)?.message ?? '')) ? '23502' : undefined);
}

/**
 * Stores one observation and returns its id (history carries ids, never HTML). With
 * `subscriptionId` the observation is a monitoring delivery of that subscription; if the
 * subscription was deleted meanwhile, it is stored as a plain observation.
 */
export async function storeObservation({ prisma }: Db, product: Product, subscriptionId?: number): Promise<bigint> {
  try {
    return await insertObservation(prisma, product, subscriptionId);
  } catch (error) {
    // 23503: foreign key violation, the subscription row is gone.
    if (subscriptionId === undefined || sqlState(error) !== '23503') throw error;
    return insertObservation(prisma, product);
  }
}

/** Attempts of the insert when a concurrent writer stored the same content or texts meanwhile. */
const INSERT_ATTEMPTS = 3;

/**
 * Inserts one observation (inside `prisma` when it is a transaction) and returns its id.
 * @throws the database's error (23503 when `subscriptionId` names no subscription).
 */
export async function insertObservation(prisma: PrismaClient | Prisma.TransactionClient, product: Product, subscriptionId?: number): Promise<bigint> {
  const params = insertParams(product, subscriptionId ?? null);
  for (let attempt = 1; ; attempt++) {
    try {
      const rows = await prisma.$queryRawUnsafe<{ id: string }[]>(INSERT_OBSERVATION, ...params);
      return BigInt(rows[0]!.id);
    } catch (error) {
      // A concurrent first insert of the same content or texts (see INSERT_OBSERVATION); in a
      // transaction the failed statement aborted it, so only outside one is it run again.
      const inTransaction = !('$transaction' in prisma);
      if (inTransaction || attempt >= INSERT_ATTEMPTS || sqlState(error) !== '23502') throw error;
    }
  }
}

/** A stored observation: its id, time and Product. */
export interface StoredObservation {
  id: bigint;
  observedAt: Date;
  product: Product;
}

const BY_IDS = `SELECT ${OBSERVATION_JSON} FROM observations o ${OBSERVATION_JOINS} WHERE o.id = ANY($1::text[]::bigint[])`;

/**
 * Stored observations by id, in one statement whatever their number (missing ids are absent from
 * the map). Each id probes the primary key of every partition (ids carry no time).
 */
export async function observationsById(prisma: PrismaClient | Prisma.TransactionClient, ids: readonly bigint[]): Promise<Map<bigint, StoredObservation>> {
  if (ids.length === 0) return new Map();
  const rows = await prisma.$queryRawUnsafe<{ observation: ObservationJson }[]>(BY_IDS, [...new Set(ids)].map(String));
  return new Map(rows.map(({ observation: o }) => [BigInt(o.id), { id: BigInt(o.id), observedAt: new Date(o.observed_at), product: productFromJson(o) }]));
}

/** Products of stored observations by id (missing ids are absent from the map). */
export async function productsById(prisma: PrismaClient | Prisma.TransactionClient, ids: readonly bigint[]): Promise<Map<bigint, Product>> {
  const stored = await observationsById(prisma, ids);
  return new Map([...stored].map(([id, o]) => [id, o.product]));
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
 * first, ties newest id first) and the page is joined to its content and texts and turned into
 * JSON after OFFSET / LIMIT, never for rows it skips.
 */
export const HISTORY_STATEMENT: Statement = {
  name: 'observations:history',
  text: `SELECT ${OBSERVATION_JSON} FROM (
      SELECT * FROM observations
      WHERE asin = $1 AND marketplace = $2
        AND observed_at >= COALESCE($3::timestamptz, '-infinity') AND observed_at < COALESCE($4::timestamptz, 'infinity')
      ORDER BY observed_at DESC, id DESC
      OFFSET $5::int LIMIT $6::int
    ) o ${OBSERVATION_JOINS}
    ORDER BY o.observed_at DESC, o.id DESC`,
};

/**
 * history's read (api-spec.md "Product endpoints": stored observations of a product, newest first,
 * from every request or subscription), one prepared statement through the hot-path SQL runner; each
 * row arrives as one JSON value instead of Prisma materialising thirty columns.
 */
export async function readHistory(sql: Sql, query: HistoryQuery): Promise<Product[]> {
  const { rows } = await sql.query<{ observation: ObservationJson }>(HISTORY_STATEMENT, [
    query.asin, query.marketplace, query.from, query.before, query.offset, query.limit,
  ]);
  return rows.map((row) => productFromJson(row.observation));
}
