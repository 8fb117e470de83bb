/**
 * The search observation repository: storing a SearchResults (search-page-contract.md
 * "SearchResults") and reading stored ones back, the latest read of a keyword's page, and a
 * product's rank history for a keyword (contract "API", `rank_history`).
 *
 * Layout (prisma/migrations/20261201100000_search_observations): each distinct item content (every
 * SearchItem field but position, organic_position and sponsored) is one `search_items` row, keyed
 * by the SHA-256 of its JSON text; a `search_observations` row holds the page's own fields and its
 * list in page order as parallel arrays (item ids, ASINs, sponsored flags). A repeated read of an
 * unchanged list therefore stores one narrow row; an item whose content changed stores that item
 * once. Positions are the array index (1-based) and organic positions the index among the
 * non-sponsored items, as the contract defines them.
 *
 * Text the database cannot hold (U+0000, unpaired surrogates) is stored as U+FFFD
 * (core/storable-text.ts `storableText`): a read the service made is never lost to it.
 */
import { createHash } from 'node:crypto';
import type { Db } from './db/db.js';
import type { Statement } from './db/sql.js';
import { isForeignKeyViolation } from './observations.js';
import type { Price } from './product.js';
import type { SearchItem, SearchQuality, SearchResults, SearchStatus } from './search.js';
import { storableText, storableValue } from './storable-text.js';

/** A keyword as posted: trimmed, every inner run of white space one space, case kept. */
export function normalizeKeyword(keyword: string): string {
  return keyword.replace(/\s+/g, ' ').trim();
}

/**
 * The identity of a keyword for reuse, latest and rank history: `normalizeKeyword`, lowercased
 * (locale-independent `toLowerCase`), so `" Running  Shoes"` and `"running shoes"` are one keyword.
 */
export function searchKeywordKey(keyword: string): string {
  return normalizeKeyword(keyword).toLowerCase();
}

const ASIN = /^[0-9A-Z]{10}$/;

/**
 * An ASIN as `search_observations.item_asins` holds it: its value in base 36, exact in a double
 * (36^10 < 2^53) and 8 bytes in the row where the text takes 16; `NOT_AN_ASIN` (-1) when `asin`
 * is not 10 characters [0-9A-Z] (no ASIN the API accepts, so no rank history asks for it; the
 * array holds no nulls, which Prisma's lists cannot read).
 */
export function asinCode(asin: string): number {
  return ASIN.test(asin) ? parseInt(asin, 36) : NOT_AN_ASIN;
}

/** `asinCode` of a card whose data-asin is not an ASIN. */
export const NOT_AN_ASIN = -1;

/** The stored content of an item: every SearchItem field but its place in the list. */
export type ItemDoc = Omit<SearchItem, 'position' | 'organic_position' | 'sponsored'>;

/** The content of `item`, keys in contract order (its JSON text is what the hash covers). */
function itemDoc(item: SearchItem): ItemDoc {
  return storableValue({
    asin: item.asin, url: item.url, title: item.title, brand: item.brand, price: item.price, list_price: item.list_price,
    rating: item.rating, ratings_count: item.ratings_count, bought_past_month: item.bought_past_month, badges: item.badges,
    prime: item.prime, coupon: item.coupon, delivery: item.delivery, image_url: item.image_url, variants_count: item.variants_count,
  });
}

/**
 * Finds or inserts the given item contents and returns their ids. $1 hashes (hex), $2 JSON texts.
 * Contents another writer committed after this statement's snapshot are in neither branch: the
 * caller asks again for those.
 */
const UPSERT_ITEMS: Statement = {
  name: 'search-items:upsert',
  text: `WITH input AS (
      SELECT decode(h, 'hex') AS hash, d FROM unnest($1::text[], $2::text[]) AS t(h, d)
    ), inserted AS (
      INSERT INTO search_items (hash, doc)
      SELECT i.hash, i.d::jsonb FROM input i WHERE NOT EXISTS (SELECT 1 FROM search_items x WHERE x.hash = i.hash)
      ON CONFLICT (hash) DO NOTHING RETURNING id, hash
    )
    SELECT encode(hash, 'hex') AS hash, id::text AS id FROM inserted
    UNION ALL
    SELECT encode(x.hash, 'hex'), x.id::text FROM search_items x WHERE x.hash = ANY (ARRAY(SELECT hash FROM input))`,
};

const INSERT_OBSERVATION: Statement = {
  name: 'search-observations:insert',
  text: `INSERT INTO search_observations (keyword, keyword_key, marketplace, page, url, observed_at, status, total_results,
      results_text, parser_version, quality, item_ids, item_asins, item_sponsored, subscription_id)
    VALUES ($1::text, $2::text, $3::text, $4::int, $5::text, $6::timestamptz, $7::text, $8::text::bigint,
      $9::text, $10::text, $11::text::jsonb, $12::text[]::bigint[], $13::bigint[], $14::boolean[], $15::int)
    RETURNING id::text AS id`,
};

/** Attempts of the item lookup when concurrent writers insert the same contents meanwhile. */
const ITEM_ATTEMPTS = 3;

/**
 * Item ids this process has stored or found live in `Db.knownIds` (as the product contents' do),
 * so a read of an unchanged list sends only its observation row. `search_items` is append-only
 * while an id is referenced, and an id enters the map only after its insert committed.
 */
const KNOWN_IDS_MAX = 100_000;
const itemKey = (hash: string) => `search-item:${hash}`;

/** The ids of `docs` (hex SHA-256 → JSON text), inserting the contents not stored yet. */
async function itemIds(db: Db, docs: Map<string, string>): Promise<Map<string, string>> {
  if (db.knownIds.size >= KNOWN_IDS_MAX) db.knownIds.clear();
  const ids = new Map<string, string>();
  let wanted: string[] = [];
  for (const hash of docs.keys()) {
    const known = db.knownIds.get(itemKey(hash));
    if (known === undefined) wanted.push(hash);
    else ids.set(hash, String(known));
  }
  for (let attempt = 1; wanted.length > 0; attempt++) {
    if (attempt > ITEM_ATTEMPTS) throw new Error(`search items not found after ${ITEM_ATTEMPTS} attempts: ${wanted.join(', ')}`);
    const { rows } = await db.sql.query<{ hash: string; id: string }>(UPSERT_ITEMS, [wanted, wanted.map((h) => docs.get(h)!)]);
    for (const row of rows) {
      ids.set(row.hash, row.id);
      db.knownIds.set(itemKey(row.hash), row.id);
    }
    wanted = wanted.filter((h) => !ids.has(h));
  }
  return ids;
}

/**
 * Stores one SearchResults and returns its id. Item contents already stored (by any list, keyword
 * or page) are referenced, not stored again. All pages of one read should carry the same
 * `observed_at`: `rankHistory` takes the pages of one instant as one read. With `subscriptionId`
 * the observation is a monitoring delivery of that subscription; if the subscription was deleted
 * meanwhile, it is stored as a plain observation.
 * @throws the database's error.
 */
export async function storeSearchObservation(db: Db, results: SearchResults, subscriptionId?: number): Promise<bigint> {
  const docs = new Map<string, string>();
  const hashes = results.items.map((item) => {
    const text = JSON.stringify(itemDoc(item));
    const hash = createHash('sha256').update(text).digest('hex');
    docs.set(hash, text);
    return hash;
  });
  const ids = await itemIds(db, docs);
  const params = [
    storableText(results.keyword), storableText(searchKeywordKey(results.keyword)), results.marketplace, results.page,
    storableText(results.url), results.observed_at, results.status,
    results.total_results === null ? null : String(results.total_results),
    results.results_text === null ? null : storableText(results.results_text), storableText(results.parser_version),
    JSON.stringify(storableValue(results.quality)), hashes.map((h) => ids.get(h)!),
    results.items.map((i) => asinCode(i.asin)), results.items.map((i) => i.sponsored), subscriptionId ?? null,
  ];
  try {
    const { rows } = await db.sql.query<{ id: string }>(INSERT_OBSERVATION, params);
    return BigInt(rows[0]!.id);
  } catch (error) {
    if (subscriptionId === undefined || !isForeignKeyViolation(error)) throw error;
    params[14] = null;
    const { rows } = await db.sql.query<{ id: string }>(INSERT_OBSERVATION, params);
    return BigInt(rows[0]!.id);
  }
}

/** A stored observation row as the read statements render it (ids as text). */
interface ObservationJson {
  id: string;
  keyword: string;
  marketplace: string;
  page: number;
  url: string;
  observed_at: string;
  status: SearchStatus;
  total_results: number | null;
  results_text: string | null;
  parser_version: string;
  quality: SearchQuality;
  item_ids: string[];
  item_sponsored: boolean[];
}

/** What the read statements yield: the rows in order, and each item content they reference once. */
interface ObservationPage {
  rows: ObservationJson[];
  items: Record<string, ItemDoc>;
}

/**
 * The read statements' select list over a CTE `o` of observation rows ordered by `ord`: one row of
 * two JSON values (see `ObservationPage`).
 */
const PAGE_SELECT = `SELECT
    (SELECT coalesce(jsonb_agg(to_jsonb(o) - 'item_asins' || jsonb_build_object('id', o.id::text, 'item_ids', o.item_ids::text[]) ORDER BY o.ord), '[]') FROM o) AS rows,
    (SELECT coalesce(jsonb_object_agg(i.id::text, i.doc), '{}') FROM search_items i
      WHERE i.id = ANY (ARRAY(SELECT DISTINCT unnest(o.item_ids) FROM o))) AS items`;

const price = (p: Price | null): Price | null => (p === null ? null : { amount: p.amount, currency: p.currency });

/** The SearchResults of a stored row, fields and keys in contract order (jsonb keeps its own order). */
function resultsOf(o: ObservationJson, items: Record<string, ItemDoc>): SearchResults {
  let organic = 0;
  return {
    keyword: o.keyword, marketplace: o.marketplace, page: o.page, url: o.url, observed_at: new Date(o.observed_at).toISOString(),
    parser_version: o.parser_version, status: o.status, total_results: o.total_results === null ? null : Number(o.total_results),
    results_text: o.results_text,
    items: o.item_ids.map((id, i) => {
      const sponsored = o.item_sponsored[i]!;
      const d = items[id]!;
      return {
        position: i + 1, organic_position: sponsored ? null : ++organic, sponsored, asin: d.asin, url: d.url, title: d.title,
        brand: d.brand, price: price(d.price), list_price: price(d.list_price), rating: d.rating, ratings_count: d.ratings_count,
        bought_past_month: d.bought_past_month, badges: d.badges, prime: d.prime, coupon: d.coupon, delivery: d.delivery,
        image_url: d.image_url, variants_count: d.variants_count,
      };
    }),
    quality: {
      version: o.quality.version, cards_seen: o.quality.cards_seen, cards_read: o.quality.cards_read,
      missing: o.quality.missing.map((m) => ({ position: m.position, field: m.field, reason: m.reason })),
    },
  };
}

const BY_IDS: Statement = {
  name: 'search-observations:by-ids',
  text: `WITH o AS MATERIALIZED (
      SELECT s.*, s.id AS ord FROM search_observations s WHERE s.id = ANY ($1::text[]::bigint[])
    ) ${PAGE_SELECT}`,
};

/**
 * Stored SearchResults by observation id, in one statement whatever their number (ids not stored
 * are absent from the map).
 */
export async function searchResultsById(db: Db, ids: readonly bigint[]): Promise<Map<bigint, SearchResults>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.sql.query<ObservationPage>(BY_IDS, [[...new Set(ids)].map(String)]);
  const page = rows[0]!;
  return new Map(page.rows.map((o) => [BigInt(o.id), resultsOf(o, page.items)]));
}

/**
 * The newest observation of a keyword key ($1), marketplace ($2) and page ($3) observed at or
 * after $4 (null: any time); ties on `observed_at`: the newest id.
 */
const LATEST: Statement = {
  name: 'search-observations:latest',
  text: `WITH o AS MATERIALIZED (
      SELECT s.*, 1 AS ord FROM search_observations s
      WHERE s.keyword_key = $1 AND s.marketplace = $2 AND s.page = $3::int AND s.observed_at >= COALESCE($4::timestamptz, '-infinity')
      ORDER BY s.observed_at DESC, s.id DESC LIMIT 1
    ) ${PAGE_SELECT}`,
};

async function newest(db: Db, keyword: string, marketplace: string, page: number, since: Date | null): Promise<{ id: bigint; results: SearchResults } | null> {
  const { rows } = await db.sql.query<ObservationPage>(LATEST, [storableText(searchKeywordKey(keyword)), marketplace, page, since]);
  const found = rows[0]?.rows[0];
  return found ? { id: BigInt(found.id), results: resultsOf(found, rows[0]!.items) } : null;
}

/**
 * The newest stored observation of this keyword (by `searchKeywordKey`, so case and white space do
 * not matter), marketplace and page observed at or after `since`, or null: the reuse window of
 * task_post (search-page-contract.md "API": a result younger than 60 minutes answers at once).
 */
export async function findRecentSearch(db: Db, q: { keyword: string; marketplace: string; page: number; since: Date }): Promise<{ id: bigint; results: SearchResults } | null> {
  return newest(db, q.keyword, q.marketplace, q.page, q.since);
}

/** The newest stored observation of this keyword (by `searchKeywordKey`), marketplace and page (default 1), or null. */
export async function latestSearch(db: Db, q: { keyword: string; marketplace: string; page?: number }): Promise<{ id: bigint; results: SearchResults } | null> {
  return newest(db, q.keyword, q.marketplace, q.page ?? 1, null);
}

/**
 * One read of a keyword in a product's rank history (search-page-contract.md "API",
 * `rank_history`): where the ASIN stood in that read. Positions are those of `page`; all null
 * when the ASIN was on none of the pages read (`page` is then the last page read).
 */
export interface RankPoint {
  /** ISO 8601, UTC. */
  observed_at: string;
  page: number;
  position: number | null;
  organic_position: number | null;
  sponsored: boolean | null;
}

/**
 * Every page of a keyword key ($1) and marketplace ($2) read in ($4 - $5 days, $4], newest first,
 * each with the first place of ASIN $3 in it (null when absent), whether that item is sponsored,
 * and its organic position (the count of non-sponsored items up to it).
 */
const RANK_HISTORY: Statement = {
  name: 'search-observations:rank-history',
  text: `SELECT r.observed_at, r.page, r.pos AS position, r.item_sponsored[r.pos] AS sponsored,
      CASE WHEN r.pos IS NULL OR r.item_sponsored[r.pos] THEN NULL
        ELSE (SELECT count(*)::int FROM unnest(r.item_sponsored[1:r.pos]) AS s(v) WHERE NOT s.v) END AS organic_position
    FROM (
      SELECT observed_at, page, item_sponsored, array_position(item_asins, $3::bigint) AS pos
      FROM search_observations
      WHERE keyword_key = $1 AND marketplace = $2
        AND observed_at >= $4::timestamptz - $5::int * interval '1 day' AND observed_at <= $4::timestamptz
    ) r
    ORDER BY r.observed_at DESC, r.page`,
};

/**
 * The rank history of `asin` for a keyword (by `searchKeywordKey`) on a marketplace over the last
 * `days` days up to `now` (default: the current time): one RankPoint per read, newest first. The
 * pages stored with the same `observed_at` are one read; its point is the ASIN's first place on
 * the lowest page that holds it, or a null point when none does.
 * @throws the database's error.
 */
export async function rankHistory(db: Db, q: { keyword: string; marketplace: string; asin: string; days: number; now?: Date }): Promise<RankPoint[]> {
  type Row = { observed_at: Date; page: number; position: number | null; sponsored: boolean | null; organic_position: number | null };
  const now = q.now ?? new Date();
  // A malformed `asin` asks for -2, which no card has (malformed cards hold NOT_AN_ASIN).
  const asked = asinCode(q.asin.trim().toUpperCase());
  const code = asked === NOT_AN_ASIN ? -2 : asked;
  const { rows } = await db.sql.query<Row>(RANK_HISTORY, [
    storableText(searchKeywordKey(q.keyword)), q.marketplace, code, now.toISOString(), Math.ceil(q.days),
  ]);
  const points: RankPoint[] = [];
  let current: { at: number; point: RankPoint } | undefined;
  for (const row of rows) {
    const at = new Date(row.observed_at).getTime();
    if (current?.at !== at) {
      current = { at, point: { observed_at: new Date(at).toISOString(), page: row.page, position: null, organic_position: null, sponsored: null } };
      points.push(current.point);
    }
    const point = current.point;
    if (point.position !== null) continue;
    point.page = row.page;
    if (row.position !== null) {
      point.position = row.position;
      point.organic_position = row.organic_position;
      point.sponsored = row.sponsored;
    }
  }
  return points;
}
