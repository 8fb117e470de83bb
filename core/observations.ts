/**
 * The observation repository: storing a parsed Product (content version + texts + the volatile
 * row, core/observation-codec.ts) and reading stored observations back as API Products.
 */
import { createHash } from 'node:crypto';
import type { Db } from './db/db.js';
import type { Prisma, PrismaClient } from './db/prisma.js';
import type { Sql, Statement } from './db/sql.js';
import {
  INSERT_OBSERVATION, INSERT_OBSERVATION_WITH_IDS, OBSERVATION_INCLUDE, OBSERVATION_JOINS, OBSERVATION_JSON, OBSERVATION_PAGE_SELECT, insertParams, productFromJson,
  productFromRow, productsOfPage, type ObservationJson, type ObservationPage, type ObservationRow,
} from './observation-codec.js';
import type { Product } from './product.js';

/** Converts a stored row read with `OBSERVATION_INCLUDE` to the API's Product (core/observation-codec.ts `productFromRow`). */
export const toProduct = productFromRow;
export { OBSERVATION_INCLUDE, type ObservationRow };

/** The driver's SQLSTATE of a failed raw statement, whether Prisma wraps it or not. */
function sqlState(error: unknown): string | undefined {
  const e = error as { code?: string; meta?: { code?: string; driverAdapterError?: { cause?: { originalCode?: string; code?: string } } }; cause?: { code?: string } };
  const adapter = e.meta?.driverAdapterError?.cause;
  return adapter?.originalCode ?? e.meta?.code ?? e.cause?.code ?? (typeof e.code === 'string' && /^\d{2}[0-9A-Z]{3}$/.test(e.code) ? e.code : undefined)
    ?? (/\b(23503|23502)\b/.exec(String((error as Error)?.message ?? ''))?.[1])
    ?? (/violates foreign key constraint/.test(String((error as Error)?.message ?? '')) ? '23503' : undefined)
    ?? (/violates not-null constraint/.test(String((error as Error)?.message ?? '')) ? '23502' : undefined);
}

/** Whether `error` is a foreign key violation (SQLSTATE 23503, Prisma P2003): e.g. the subscription is gone. */
export function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: string })?.code === 'P2003' || sqlState(error) === '23503';
}

/**
 * Stores one observation and returns its id (history carries ids, never HTML). With
 * `subscriptionId` the observation is a monitoring delivery of that subscription; if the
 * subscription was deleted meanwhile, it is stored as a plain observation.
 */
export async function storeObservation(db: Db, product: Product, subscriptionId?: number): Promise<bigint> {
  try {
    return await insertObservation(db, product, subscriptionId);
  } catch (error) {
    // 23503: foreign key violation, the subscription row is gone.
    if (subscriptionId === undefined || !isForeignKeyViolation(error)) throw error;
    return insertObservation(db, product);
  }
}

const INSERT_STATEMENT: Statement = { name: 'observations:insert', text: INSERT_OBSERVATION };
const INSERT_WITH_IDS_STATEMENT: Statement = { name: 'observations:insert-with-ids', text: INSERT_OBSERVATION_WITH_IDS };

/** Attempts of the insert when a concurrent writer stored the same content or texts meanwhile. */
const INSERT_ATTEMPTS = 3;

/**
 * The database's ids of content versions and texts this process has stored or found
 * (`Db.knownIds`), by a hash of their document (content: with the product), so that a read of an
 * unchanged page sends only its volatile values. Both tables are append-only, so an id once seen
 * stays valid; filled only from committed inserts, and emptied when it grows past `KNOWN_IDS_MAX`.
 */
const KNOWN_IDS_MAX = 100_000;
const keyOf = (kind: string, text: string) => `${kind}:${createHash('sha256').update(text).digest('base64')}`;

function knownIds(db: Db | null): Map<string, string | number> | undefined {
  if (!db) return undefined;
  if (db.knownIds.size >= KNOWN_IDS_MAX) db.knownIds.clear();
  return db.knownIds;
}

/**
 * Inserts one observation (inside `target` when it is a transaction) and returns its id.
 * @throws the database's error (23503 when `subscriptionId` names no subscription).
 */
export async function insertObservation(target: Db | Prisma.TransactionClient, product: Product, subscriptionId?: number): Promise<bigint> {
  const params = insertParams(product, subscriptionId ?? null);
  const contentKey = keyOf(`${product.asin}|${product.marketplace}`, params[5] as string);
  const textsKey = keyOf('texts', params[6] as string);
  // A transaction runs it on its own connection; a Db on its pool as a prepared statement.
  const client = 'sql' in target ? target : null;
  const known = knownIds(client);
  const contentId = known?.get(contentKey);
  const textsId = known?.get(textsKey);
  const withIds = contentId !== undefined && textsId !== undefined;
  if (withIds) {
    params[5] = contentId;
    params[6] = textsId;
  }
  for (let attempt = 1; ; attempt++) {
    try {
      type Inserted = { id: string; content_id: string; texts_id: number };
      const rows = client
        ? (await client.sql.query<Inserted>(withIds ? INSERT_WITH_IDS_STATEMENT : INSERT_STATEMENT, params)).rows
        : await (target as Prisma.TransactionClient).$queryRawUnsafe<Inserted[]>(withIds ? INSERT_OBSERVATION_WITH_IDS : INSERT_OBSERVATION, ...params);
      const row = rows[0]!;
      // Outside a transaction the ids are committed now; inside one they may yet be rolled back.
      if (known && !withIds) {
        known.set(contentKey, row.content_id);
        known.set(textsKey, row.texts_id);
      }
      return BigInt(row.id);
    } catch (error) {
      // A concurrent first insert of the same content or texts (see INSERT_OBSERVATION); in a
      // transaction the failed statement aborted it, so only outside one is it run again.
      if (!client || attempt >= INSERT_ATTEMPTS || sqlState(error) !== '23502') throw error;
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
 * first, ties newest id first); the page is turned into JSON after OFFSET / LIMIT, never for rows
 * it skips, with each content version and texts it references once (`OBSERVATION_PAGE_SELECT`).
 */
export const HISTORY_STATEMENT: Statement = {
  name: 'observations:history',
  text: `WITH page AS MATERIALIZED (
      SELECT * FROM observations
      WHERE asin = $1 AND marketplace = $2
        AND observed_at >= COALESCE($3::timestamptz, '-infinity') AND observed_at < COALESCE($4::timestamptz, 'infinity')
      ORDER BY observed_at DESC, id DESC
      OFFSET $5::int LIMIT $6::int
    ) ${OBSERVATION_PAGE_SELECT}`,
};

/**
 * history's read (api-spec.md "Product endpoints": stored observations of a product, newest first,
 * from every request or subscription), one prepared statement through the hot-path SQL runner; each
 * row arrives as one JSON value instead of Prisma materialising thirty columns.
 */
export async function readHistory(sql: Sql, query: HistoryQuery): Promise<Product[]> {
  const { rows } = await sql.query<ObservationPage>(HISTORY_STATEMENT, [
    query.asin, query.marketplace, query.from, query.before, query.offset, query.limit,
  ]);
  return productsOfPage(rows[0]);
}
