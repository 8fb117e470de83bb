/**
 * The observation codec: the one place that knows how a stored observation maps to the API's
 * Product (api-spec.md "Product") and back. An observation is stored in three parts
 * (prisma/migrations/20261127100000_observations_partitioned):
 *
 * - the `observations` row: what moves between two reads of a page (status, prices, coupon
 *   numbers, Prime, buy-box flags, stock quantity, BSR ranks, rating, histogram, quality counts,
 *   references), as typed columns;
 * - its `product_contents` row: the slow-moving content (`ContentDoc`), once per distinct version
 *   of a product's content;
 * - its `observation_texts` row: the repeated short texts of a read (`TextsDoc`), once per
 *   distinct combination across all products.
 *
 * Three shapes meet here:
 * - `ObservationRow`, the row as Prisma returns it with `OBSERVATION_INCLUDE` (GraphQL loaders,
 *   monitoring/list, postbacks);
 * - `ObservationJson`, the row as `OBSERVATION_JSON` renders it over `OBSERVATION_JOINS`, which the
 *   hot-path statements (task_get, live, history, exports) select as one value; numeric columns
 *   arrive as JSON numbers, so no Decimal is built for them;
 * - `Product`, what every presenter answers.
 *
 * Money: amounts are numeric(18,4) in major units of their currency; `rating` numeric(3,2).
 */
import type { Observation, ObservationText, Prisma, ProductContent } from '../prisma/generated/client/client.js';
import type { Availability, AvailabilityStatus, Bsr, MissingReason, Price, Product, RatingHistogram, Variant } from './product.js';

/** A stored observation as Prisma returns it with `OBSERVATION_INCLUDE`. */
export type ObservationRow = Observation & { content: ProductContent; texts: ObservationText };

/** What a Prisma read of observations includes so that `productFromRow` can decode them. */
export const OBSERVATION_INCLUDE = { content: true, texts: true } as const satisfies Prisma.ObservationInclude;

/**
 * The content of a product page that changes rarely: stored once per distinct version (its hash is
 * the SHA-256 of the jsonb text, computed by the database). Every key is always present.
 */
export interface ContentDoc {
  url: string;
  title: string | null;
  byline: string[];
  variant: string | null;
  variants: Variant[];
  image_url: string | null;
  details: Record<string, string>;
  description: string | null;
  feature_bullets: string[];
  images: string[];
  categories: string[];
  /** The BSR's main category then its subcategories' names, in page order; null without a BSR. */
  bsr_categories: string[] | null;
}

/** The repeated short texts of one read, stored once per distinct combination. Every key is always present. */
export interface TextsDoc {
  parser_version: string;
  availability: { status: AvailabilityStatus; text: string } | null;
  delivery: { location: string | null; promise: string | null } | null;
  buy_box: { seller_name: string | null; seller_id: string | null; ships_from: string | null } | null;
  coupon: { text: string; currency: string | null } | null;
  list_price_currency: string | null;
  subscribe_save_currency: string | null;
  missing: { field: string; reason: MissingReason }[];
}

/** The content version of a Product. */
export function contentDocOf(p: Product): ContentDoc {
  return {
    url: p.url,
    title: p.title,
    byline: p.byline,
    variant: p.variant,
    variants: p.variants,
    image_url: p.image_url,
    details: p.details,
    description: p.description,
    feature_bullets: p.feature_bullets,
    images: p.images,
    categories: p.categories,
    bsr_categories: p.bsr ? [p.bsr.category, ...p.bsr.subcategories.map((s) => s.category)] : null,
  };
}

/** The short texts of a Product's read. */
export function textsDocOf(p: Product): TextsDoc {
  return {
    parser_version: p.parser_version,
    availability: p.availability ? { status: p.availability.status, text: p.availability.text } : null,
    delivery: p.delivery ? { location: p.delivery.location, promise: p.delivery.promise } : null,
    buy_box: p.buy_box ? { seller_name: p.buy_box.seller_name, seller_id: p.buy_box.seller_id, ships_from: p.buy_box.ships_from } : null,
    coupon: p.coupon ? { text: p.coupon.text, currency: p.coupon.amount?.currency ?? null } : null,
    list_price_currency: p.list_price?.currency ?? null,
    subscribe_save_currency: p.subscribe_save_price?.currency ?? null,
    missing: p.quality.missing,
  };
}

/** Joins every statement selecting `OBSERVATION_JSON` adds after the observation `o`. */
export const OBSERVATION_JOINS = `LEFT JOIN product_contents oc ON oc.id = o.content_id LEFT JOIN observation_texts ot ON ot.id = o.texts_id`;

/**
 * Select-list item: the joined observation `o` (with `OBSERVATION_JOINS`) as one JSON column
 * `observation` (null when a LEFT JOIN found none). Its id is text (exact beyond 2^53).
 */
export const OBSERVATION_JSON = `CASE WHEN o.id IS NULL THEN NULL ELSE to_jsonb(o) || jsonb_build_object('id', o.id::text, 'content', oc.doc, 'texts', ot.doc) END AS observation`;

/** An observation as `OBSERVATION_JSON` renders it (numeric as numbers, timestamps as ISO text). */
export interface ObservationJson {
  id: string;
  asin: string;
  marketplace: string;
  observed_at: string;
  status: string;
  subscription_id: number | null;
  price_amount: number | null;
  price_currency: string | null;
  bsr_rank: number | null;
  bsr_ranks: number[] | null;
  rating: number | null;
  ratings_count: number | null;
  list_price: number | null;
  subscribe_save_price: number | null;
  coupon_percent: number | null;
  coupon_amount: number | null;
  prime: boolean | null;
  sold_by_amazon: boolean | null;
  fulfilled_by_amazon: boolean | null;
  availability_quantity: number | null;
  histogram_5: number | null;
  histogram_4: number | null;
  histogram_3: number | null;
  histogram_2: number | null;
  histogram_1: number | null;
  quality_version: number;
  fields_read: number | null;
  fields_applicable: number | null;
  content: ContentDoc;
  texts: TextsDoc;
}

/**
 * Select list over a CTE `page` of observation rows (in their order `observed_at DESC, id DESC`):
 * one row of three JSON values, the rows (`to_jsonb`, id as text), and the content versions and
 * texts they reference, each once by id, so a page of a product's history carries its content
 * once rather than once per row. The ids are looked up as an array (`= ANY`), which keeps the
 * primary keys in use however small the planner thinks the tables are. Decoded by `productsOfPage`.
 */
export const OBSERVATION_PAGE_SELECT = `SELECT
    (SELECT coalesce(jsonb_agg(to_jsonb(p) || jsonb_build_object('id', p.id::text) ORDER BY p.observed_at DESC, p.id DESC), '[]') FROM page p) AS rows,
    (SELECT coalesce(jsonb_object_agg(c.id::text, c.doc), '{}') FROM product_contents c WHERE c.id = ANY (ARRAY(SELECT DISTINCT content_id FROM page))) AS contents,
    (SELECT coalesce(jsonb_object_agg(t.id::text, t.doc), '{}') FROM observation_texts t WHERE t.id = ANY (ARRAY(SELECT DISTINCT texts_id FROM page))) AS texts`;

/** The row `OBSERVATION_PAGE_SELECT` yields. */
export interface ObservationPage {
  rows: (Omit<ObservationJson, 'content' | 'texts'> & { content_id: string | number; texts_id: number })[];
  contents: Record<string, ContentDoc>;
  texts: Record<string, TextsDoc>;
}

/** The Products of a page selected with `OBSERVATION_PAGE_SELECT`, in its order. */
export function productsOfPage(page: ObservationPage | undefined): Product[] {
  if (!page) return [];
  return page.rows.map((o) => productFromJson({ ...o, content: page.contents[String(o.content_id)]!, texts: page.texts[String(o.texts_id)]! }));
}

/** The volatile columns of an observation, numbers as numbers, whichever shape they came in. */
type Volatile = Omit<ObservationJson, 'id' | 'observed_at' | 'subscription_id' | 'content' | 'texts'> & { observed_at: string };

const money = (amount: number | null, currency: string | null): Price | null => (amount !== null && currency ? { amount, currency } : null);

function decode(v: Volatile, c: ContentDoc, t: TextsDoc): Product {
  const cats = c.bsr_categories;
  const bsr: Bsr | null = v.bsr_rank !== null && cats && cats.length > 0
    ? { rank: v.bsr_rank, category: cats[0]!, subcategories: cats.slice(1).map((category, i) => ({ rank: v.bsr_ranks?.[i] ?? 0, category })) }
    : null;
  const histogram: RatingHistogram | null = v.histogram_5 === null
    ? null
    : { '5': v.histogram_5, '4': v.histogram_4 ?? 0, '3': v.histogram_3 ?? 0, '2': v.histogram_2 ?? 0, '1': v.histogram_1 ?? 0 };
  const availability: Availability | null = t.availability ? { status: t.availability.status, text: t.availability.text, quantity: v.availability_quantity } : null;
  return {
    asin: v.asin,
    marketplace: v.marketplace,
    url: c.url,
    observed_at: v.observed_at,
    status: v.status as Product['status'],
    title: c.title,
    byline: c.byline,
    variant: c.variant,
    variants: c.variants,
    price: money(v.price_amount, v.price_currency),
    bsr,
    rating: v.rating,
    ratings_count: v.ratings_count,
    image_url: c.image_url,
    details: c.details,
    parser_version: t.parser_version,
    list_price: money(v.list_price, t.list_price_currency),
    subscribe_save_price: money(v.subscribe_save_price, t.subscribe_save_currency),
    coupon: t.coupon ? { text: t.coupon.text, percent: v.coupon_percent, amount: money(v.coupon_amount, t.coupon.currency) } : null,
    prime: v.prime,
    buy_box: t.buy_box ? { ...t.buy_box, sold_by_amazon: v.sold_by_amazon, fulfilled_by_amazon: v.fulfilled_by_amazon } : null,
    availability,
    delivery: t.delivery ? { location: t.delivery.location, promise: t.delivery.promise } : null,
    feature_bullets: c.feature_bullets,
    description: c.description,
    images: c.images,
    categories: c.categories,
    rating_histogram: histogram,
    quality: { version: v.quality_version, fields_read: v.fields_read, fields_applicable: v.fields_applicable, missing: t.missing },
  };
}

/** The Product of an observation selected with `OBSERVATION_JSON`; every field present. */
export function productFromJson(o: ObservationJson): Product {
  return decode({ ...o, observed_at: new Date(o.observed_at).toISOString() }, o.content, o.texts);
}

const num = (d: Prisma.Decimal | null): number | null => (d === null ? null : d.toNumber());

/** The Product of a Prisma row read with `OBSERVATION_INCLUDE` (api-spec.md "Product"); every field present. */
export function productFromRow(row: ObservationRow): Product {
  return decode({
    asin: row.asin,
    marketplace: row.marketplace,
    observed_at: row.observedAt.toISOString(),
    status: row.status,
    price_amount: num(row.priceAmount),
    price_currency: row.priceCurrency,
    bsr_rank: row.bsrRank,
    bsr_ranks: row.bsrRanks,
    rating: num(row.rating),
    ratings_count: row.ratingsCount,
    list_price: num(row.listPrice),
    subscribe_save_price: num(row.subscribeSavePrice),
    coupon_percent: num(row.couponPercent),
    coupon_amount: num(row.couponAmount),
    prime: row.prime,
    sold_by_amazon: row.soldByAmazon,
    fulfilled_by_amazon: row.fulfilledByAmazon,
    availability_quantity: row.availabilityQuantity,
    histogram_5: row.histogram5,
    histogram_4: row.histogram4,
    histogram_3: row.histogram3,
    histogram_2: row.histogram2,
    histogram_1: row.histogram1,
    quality_version: row.qualityVersion,
    fields_read: row.fieldsRead,
    fields_applicable: row.fieldsApplicable,
  }, row.content.doc as unknown as ContentDoc, row.texts.doc as unknown as TextsDoc);
}

/** A number as exact text for a numeric parameter (JavaScript's own printing of it), or null. */
const dec = (n: number | null | undefined): string | null => (n === null || n === undefined ? null : String(n));

/**
 * The parameters of `INSERT_OBSERVATION` for a Product: $1 asin, $2 marketplace, $3 observed_at,
 * $4 status, $5 subscription id, $6 content doc, $7 texts doc, then the volatile columns in the
 * order of `VOLATILE_COLUMNS`.
 */
export function insertParams(p: Product, subscriptionId: number | null): unknown[] {
  const h = p.rating_histogram;
  return [
    p.asin, p.marketplace, p.observed_at, p.status, subscriptionId, JSON.stringify(contentDocOf(p)), JSON.stringify(textsDocOf(p)),
    dec(p.price?.amount), p.price?.currency ?? null, p.bsr?.rank ?? null, p.bsr ? p.bsr.subcategories.map((s) => s.rank) : null,
    dec(p.rating), p.ratings_count, dec(p.list_price?.amount), dec(p.subscribe_save_price?.amount),
    dec(p.coupon?.percent), dec(p.coupon?.amount?.amount), p.prime, p.buy_box?.sold_by_amazon ?? null, p.buy_box?.fulfilled_by_amazon ?? null,
    p.availability?.quantity ?? null, h?.['5'] ?? null, h?.['4'] ?? null, h?.['3'] ?? null, h?.['2'] ?? null, h?.['1'] ?? null,
    p.quality.version, p.quality.fields_read, p.quality.fields_applicable,
  ];
}

/** The volatile columns after the first seven parameters of `insertParams`, with their SQL types. */
const VOLATILE_COLUMNS: [string, string][] = [
  ['price_amount', 'numeric'], ['price_currency', 'text'], ['bsr_rank', 'int'], ['bsr_ranks', 'int[]'],
  ['rating', 'numeric'], ['ratings_count', 'int'], ['list_price', 'numeric'], ['subscribe_save_price', 'numeric'],
  ['coupon_percent', 'numeric'], ['coupon_amount', 'numeric'], ['prime', 'boolean'], ['sold_by_amazon', 'boolean'], ['fulfilled_by_amazon', 'boolean'],
  ['availability_quantity', 'int'], ['histogram_5', 'smallint'], ['histogram_4', 'smallint'], ['histogram_3', 'smallint'], ['histogram_2', 'smallint'], ['histogram_1', 'smallint'],
  ['quality_version', 'smallint'], ['fields_read', 'smallint'], ['fields_applicable', 'smallint'],
];

/**
 * CTEs upserting a jsonb doc into `table` (keyed by the SHA-256 of its jsonb text, computed once)
 * and yielding its id as `<name>`.
 */
function upsertDoc(name: string, table: string, doc: string, key: { columns: string; values: string; where: string } | null): string {
  const where = key ? ` AND ${key.where}` : '';
  return `${name}_doc AS MATERIALIZED (
      SELECT d.doc, sha256(convert_to(d.doc::text, 'UTF8')) AS hash FROM (SELECT ${doc}::jsonb AS doc) d
    ), ${name}_new AS (
      INSERT INTO ${table} (${key ? `${key.columns}, ` : ''}hash, doc)
      SELECT ${key ? `${key.values}, ` : ''}n.hash, n.doc FROM ${name}_doc n
      WHERE NOT EXISTS (SELECT 1 FROM ${table} x WHERE x.hash = n.hash${where})
      ON CONFLICT DO NOTHING RETURNING id
    ), ${name} AS (
      SELECT id FROM ${name}_new UNION ALL SELECT x.id FROM ${table} x, ${name}_doc n WHERE x.hash = n.hash${where}
    )`;
}

const INSERT_COLUMNS = `asin, marketplace, observed_at, status, subscription_id, content_id, texts_id, ${VOLATILE_COLUMNS.map(([c]) => c).join(', ')}`;
const VOLATILE_VALUES = VOLATILE_COLUMNS.map(([, type], i) => `$${i + 8}::${type}`).join(', ');

/**
 * One observation in one statement: the content version and the texts are found by hash or
 * inserted, then the volatile row. Parameters: `insertParams`. When a concurrent writer inserted
 * the same content or texts and committed after this statement's snapshot, neither branch sees an
 * id and the NOT NULL of `content_id` / `texts_id` refuses the row (SQLSTATE 23502): run it again.
 * Returns the row's id and the ids of its content version and texts.
 */
export const INSERT_OBSERVATION = `WITH ${upsertDoc('c', 'product_contents', '$6::text', { columns: 'asin, marketplace', values: '$1::text, $2::text', where: 'x.asin = $1::text AND x.marketplace = $2::text' })},
    ${upsertDoc('t', 'observation_texts', '$7::text', null)}
    INSERT INTO observations (${INSERT_COLUMNS})
    VALUES ($1::text, $2::text, $3::timestamptz, $4::text, $5::int, (SELECT id FROM c LIMIT 1), (SELECT id FROM t LIMIT 1), ${VOLATILE_VALUES})
    RETURNING id::text AS id, content_id::text AS content_id, texts_id`;

/**
 * The same row when its content version and texts ids are known ($6 content id, $7 texts id in
 * place of the documents of `insertParams`): a plain insert.
 */
export const INSERT_OBSERVATION_WITH_IDS = `INSERT INTO observations (${INSERT_COLUMNS})
    VALUES ($1::text, $2::text, $3::timestamptz, $4::text, $5::int, $6::bigint, $7::int, ${VOLATILE_VALUES})
    RETURNING id::text AS id, content_id::text AS content_id, texts_id`;
