/**
 * The caller's observed products: for each ASIN and marketplace the account has read, the newest
 * observation it was given — a completed task's Product (20000, unexpired) or a subscription's
 * latest delivery — newest first, optionally searched by ASIN or title (case-insensitive
 * substring). Only observations the account already holds are listed: a newer read by another
 * account stays behind the charged history endpoints.
 */
import type { Db } from './db/db.js';
import { STATUS } from './domain/status-codes.js';
import { productsById } from './observations.js';
import type { Product } from './product.js';

/** What `observedProducts` lists: `first` 1..100 rows, `search` at most 200 characters (validated by the caller). */
export interface ObservedProductsQuery {
  search?: string;
  first: number;
}

/** `%` and `_` match themselves in a search (ILIKE with the default escape `\`). */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The Products, newest delivery first, ties by newest id. */
export async function observedProducts(db: Db, accountId: number, query: ObservedProductsQuery): Promise<Product[]> {
  const pattern = query.search?.trim() ? likePattern(query.search.trim()) : null;
  const ids = await db.prisma.$queryRaw<{ id: bigint }[]>`
    WITH mine AS (
      SELECT t.asin, t.marketplace, t.observation_id, t.completed_at AS at
        FROM tasks t
       WHERE t.account_id = ${accountId} AND t.observation_id IS NOT NULL
         AND t.status_code = ${STATUS.OK} AND t.expires_at > now()
      UNION ALL
      SELECT s.asin, s.marketplace, s.latest_observation_id, o.observed_at
        FROM subscriptions s JOIN observations o ON o.id = s.latest_observation_id
       WHERE s.account_id = ${accountId}
    ), latest AS (
      SELECT DISTINCT ON (asin, marketplace) asin, marketplace, observation_id, at
        FROM mine ORDER BY asin, marketplace, at DESC NULLS LAST, observation_id DESC
    )
    SELECT l.observation_id AS id
      FROM latest l
      JOIN observations o ON o.id = l.observation_id
      JOIN product_contents c ON c.id = o.content_id
     WHERE ${pattern}::text IS NULL OR l.asin ILIKE ${pattern}::text OR c.doc->>'title' ILIKE ${pattern}::text
     ORDER BY l.at DESC NULLS LAST, l.observation_id DESC
     LIMIT ${query.first}`;
  if (ids.length === 0) return [];
  const byId = await productsById(db.prisma, ids.map((r) => r.id));
  return ids.map((r) => byId.get(r.id)).filter((p): p is Product => p !== undefined);
}
