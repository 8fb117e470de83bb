/**
 * Stored observations for tests: Products with every version 2 field filled with realistic values
 * (`withVersion2Fields`, shared with the benchmarks), and rows written through the observation repository from the flat shape
 * tests describe them in (`storeRows`).
 */
import type { Db } from '../../core/db/db.js';
import { insertObservation } from '../../core/observations.js';
import { version1Fields, type Product } from '../../core/product.js';
import { withVersion2Fields } from '../../bench/pages.js';

export { withVersion2Fields };

/** An observation in the flat shape tests describe it (the columns of the pre-version-2 table). */
export interface FlatRow {
  asin: string;
  marketplace: string;
  observedAt: Date;
  status: string;
  url: string;
  title?: string | null;
  byline?: string[];
  variants?: Product['variants'];
  priceAmount?: string | null;
  priceCurrency?: string | null;
  bsr?: Product['bsr'];
  bsrRank?: number | null;
  rating?: string | null;
  ratingsCount?: number | null;
  details?: Record<string, string>;
  parserVersion: string;
  subscriptionId?: number | null;
}

/** The Product of a flat row (a rank without `bsr` becomes a BSR of category `Test`). */
export function productOfRow(r: FlatRow): Product {
  const rank = r.bsrRank ?? r.bsr?.rank ?? null;
  return {
    asin: r.asin, marketplace: r.marketplace, url: r.url, observed_at: r.observedAt.toISOString(), status: r.status as Product['status'],
    title: r.title ?? null, byline: r.byline ?? [], variant: null, variants: r.variants ?? [],
    price: r.priceAmount != null && r.priceCurrency ? { amount: Number(r.priceAmount), currency: r.priceCurrency } : null,
    bsr: r.bsr ?? (rank === null ? null : { rank, category: 'Test', subcategories: [] }),
    rating: r.rating == null ? null : Number(r.rating), ratings_count: r.ratingsCount ?? null, image_url: null, details: r.details ?? {},
    parser_version: r.parserVersion, ...version1Fields(),
  };
}

/** Stores flat rows through the observation repository, in order; returns their ids. */
export async function storeRows(db: Db, rows: FlatRow[]): Promise<bigint[]> {
  const ids: bigint[] = [];
  for (const row of rows) ids.push(await insertObservation(db, productOfRow(row), row.subscriptionId ?? undefined));
  return ids;
}

/** GraphQL's Product fields, every one (api/graphql/schema/product.ts `ProductRef`, product-v2.ts). */
export const GRAPHQL_PRODUCT_FIELDS = `asin marketplace url observedAt status title byline variant variants { name asin } price { amount currency }
  bsr { rank category subcategories { rank category } } rating ratingsCount imageUrl details { label value } parserVersion
  listPrice { amount currency } subscribeSavePrice { amount currency } coupon { text percent amount { amount currency } } prime
  buyBox { sellerName sellerId shipsFrom soldByAmazon fulfilledByAmazon } availability { status text quantity } delivery { location promise }
  featureBullets description images categories ratingHistogram { fiveStar fourStar threeStar twoStar oneStar }
  quality { version fieldsRead fieldsApplicable missing { field reason } }`;

/** What GraphQL answers for `GRAPHQL_PRODUCT_FIELDS` of a REST Product, in the same order. */
export function graphqlProductOf(p: Product) {
  return {
    asin: p.asin, marketplace: p.marketplace, url: p.url, observedAt: p.observed_at, status: p.status, title: p.title, byline: p.byline,
    variant: p.variant, variants: p.variants.map((v) => ({ name: v.name, asin: v.asin })), price: p.price, bsr: p.bsr, rating: p.rating,
    ratingsCount: p.ratings_count, imageUrl: p.image_url, details: Object.entries(p.details).map(([label, value]) => ({ label, value })),
    parserVersion: p.parser_version,
    listPrice: p.list_price, subscribeSavePrice: p.subscribe_save_price,
    coupon: p.coupon && { text: p.coupon.text, percent: p.coupon.percent, amount: p.coupon.amount }, prime: p.prime,
    buyBox: p.buy_box && {
      sellerName: p.buy_box.seller_name, sellerId: p.buy_box.seller_id, shipsFrom: p.buy_box.ships_from,
      soldByAmazon: p.buy_box.sold_by_amazon, fulfilledByAmazon: p.buy_box.fulfilled_by_amazon,
    },
    availability: p.availability, delivery: p.delivery, featureBullets: p.feature_bullets, description: p.description, images: p.images,
    categories: p.categories,
    ratingHistogram: p.rating_histogram && {
      fiveStar: p.rating_histogram['5'], fourStar: p.rating_histogram['4'], threeStar: p.rating_histogram['3'],
      twoStar: p.rating_histogram['2'], oneStar: p.rating_histogram['1'],
    },
    quality: { version: p.quality.version, fieldsRead: p.quality.fields_read, fieldsApplicable: p.quality.fields_applicable, missing: p.quality.missing },
  };
}
