/**
 * The observation codec: the one place that knows how a stored observation row (`observations`
 * table) maps to the API's Product (api-spec.md "Product") and back. Three shapes meet here:
 *
 * - `ObservationRow`, the row as Prisma returns it (GraphQL loaders, monitoring/list);
 * - `ObservationJson`, the row as `to_jsonb` renders it (`OBSERVATION_JSON`), which the hot-path
 *   statements (task_get, live, history) select as one value instead of twenty columns; numeric
 *   columns arrive as JSON numbers, so no Decimal is built for them;
 * - `Product`, what both presenters answer.
 *
 * Money: `price_amount` is numeric(18,4) in major units of `price_currency`; `rating` numeric(3,2).
 */
import type { Observation, Prisma } from '../prisma/generated/client/client.js';
import { version1Fields, type Bsr, type Product, type Variant } from './product.js';

/** A stored observation row as Prisma returns it. */
export type ObservationRow = Observation;

/**
 * Select-list item: the joined observation `o` as one JSON column `observation` (null when a LEFT
 * JOIN found none). Its id is text (exact beyond 2^53).
 */
export const OBSERVATION_JSON = `CASE WHEN o.id IS NULL THEN NULL ELSE to_jsonb(o) || jsonb_build_object('id', o.id::text) END AS observation`;

/** An observation row as `to_jsonb` renders it (numeric as numbers, timestamps as ISO text). */
export interface ObservationJson {
  id: string;
  asin: string;
  marketplace: string;
  observed_at: string;
  status: string;
  url: string;
  title: string | null;
  byline: Prisma.JsonValue;
  variant: string | null;
  variants: Prisma.JsonValue;
  price_amount: number | null;
  price_currency: string | null;
  bsr: Prisma.JsonValue | null;
  bsr_rank: number | null;
  rating: number | null;
  ratings_count: number | null;
  image_url: string | null;
  details: Prisma.JsonValue;
  parser_version: string;
  subscription_id: number | null;
}

/** The Product of a row selected with `OBSERVATION_JSON`; every field present. */
export function productFromJson(o: ObservationJson): Product {
  return {
    asin: o.asin,
    marketplace: o.marketplace,
    url: o.url,
    observed_at: new Date(o.observed_at).toISOString(),
    status: o.status as Product['status'],
    title: o.title,
    byline: (o.byline as string[] | null) ?? [],
    variant: o.variant,
    variants: (o.variants as Variant[] | null) ?? [],
    price: o.price_amount !== null && o.price_currency ? { amount: o.price_amount, currency: o.price_currency } : null,
    bsr: (o.bsr as Bsr | null) ?? null,
    rating: o.rating,
    ratings_count: o.ratings_count,
    image_url: o.image_url,
    details: (o.details as Record<string, string> | null) ?? {},
    parser_version: o.parser_version,
    ...version1Fields(),
  };
}

/** The Product of a Prisma row (api-spec.md "Product"); every field present. */
export function productFromRow(row: ObservationRow): Product {
  return {
    asin: row.asin,
    marketplace: row.marketplace,
    url: row.url,
    observed_at: row.observedAt.toISOString(),
    status: row.status as Product['status'],
    title: row.title,
    byline: (row.byline as string[] | null) ?? [],
    variant: row.variant,
    variants: (row.variants as Variant[] | null) ?? [],
    price: row.priceAmount !== null && row.priceCurrency ? { amount: row.priceAmount.toNumber(), currency: row.priceCurrency } : null,
    bsr: (row.bsr as Bsr | null) ?? null,
    rating: row.rating === null ? null : row.rating.toNumber(),
    ratings_count: row.ratingsCount,
    image_url: row.imageUrl,
    details: (row.details as Record<string, string> | null) ?? {},
    parser_version: row.parserVersion,
    ...version1Fields(),
  };
}

/**
 * The row to insert for a Product. Decimal columns are given as text (exact: the parser's number
 * printed as JavaScript prints it). `subscriptionId`: the subscription it was delivered to, if any.
 */
export function rowFromProduct(product: Product, subscriptionId?: number): Prisma.ObservationUncheckedCreateInput {
  return {
    asin: product.asin,
    marketplace: product.marketplace,
    observedAt: new Date(product.observed_at),
    status: product.status,
    url: product.url,
    title: product.title,
    byline: product.byline,
    variant: product.variant,
    variants: product.variants as unknown as object[],
    priceAmount: product.price ? String(product.price.amount) : null,
    priceCurrency: product.price?.currency ?? null,
    bsr: product.bsr ? (product.bsr as unknown as object) : undefined,
    bsrRank: product.bsr?.rank ?? null,
    rating: product.rating === null ? null : String(product.rating),
    ratingsCount: product.ratings_count,
    imageUrl: product.image_url,
    details: product.details,
    parserVersion: product.parser_version,
    subscriptionId: subscriptionId ?? null,
  };
}
