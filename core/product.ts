/**
 * The Product observation as the API returns it (api-spec.md "Product").
 * Every field is always present; unreadable fields are null (lists and `details`: empty).
 */
export interface Product {
  asin: string;
  marketplace: string;
  url: string;
  /** ISO 8601, UTC. */
  observed_at: string;
  status: ProductStatus;
  title: string | null;
  byline: string[];
  variant: string | null;
  variants: Variant[];
  price: Price | null;
  bsr: Bsr | null;
  rating: number | null;
  ratings_count: number | null;
  image_url: string | null;
  details: Record<string, string>;
  parser_version: string;
  // Version 2 fields (product-page-contract.md "Version 2 fields"): null (lists: empty) when the
  // page does not show them, and on observations stored before version 2 (`quality.version` 1).
  list_price: Price | null;
  subscribe_save_price: Price | null;
  coupon: Coupon | null;
  prime: boolean | null;
  buy_box: BuyBox | null;
  availability: Availability | null;
  delivery: Delivery | null;
  feature_bullets: string[];
  description: string | null;
  images: string[];
  categories: string[];
  rating_histogram: RatingHistogram | null;
  quality: Quality;
}

export type ProductStatus = 'ok' | 'no_bsr' | 'not_found';

export interface Variant {
  name: string;
  asin: string;
}

/** `amount` in major units of the marketplace currency; `currency` ISO 4217. */
export interface Price {
  amount: number;
  currency: string;
}

/** A coupon badge: `text` as shown; whichever of `percent` / `amount` the text states, the other null. */
export interface Coupon {
  text: string;
  percent: number | null;
  amount: Price | null;
}

/** The featured offer's merchant (`#tabular-buybox`, `#merchant-info`, the buy box's "Ships from" / "Sold by" grid). */
export interface BuyBox {
  seller_name: string | null;
  /** From the `seller=` parameter of a visible seller link only. */
  seller_id: string | null;
  ships_from: string | null;
  /** The seller is the marketplace's own retail (Amazon.com, Amazon EU S.à r.l., …). */
  sold_by_amazon: boolean | null;
  /** Ships from Amazon. */
  fulfilled_by_amazon: boolean | null;
}

export const AVAILABILITY_STATUSES = ['in_stock', 'low_stock', 'out_of_stock', 'preorder', 'back_order', 'unknown'] as const;
export type AvailabilityStatus = (typeof AVAILABILITY_STATUSES)[number];

/** `#availability`: `text` as shown, `quantity` the number of "Only 3 left in stock" or null. */
export interface Availability {
  status: AvailabilityStatus;
  text: string;
  quantity: number | null;
}

/** Where the page delivers to (without its localized prefix) and the buy box's first delivery promise. */
export interface Delivery {
  location: string | null;
  promise: string | null;
}

/** Percent of ratings per star count, integers as shown. */
export interface RatingHistogram {
  '5': number;
  '4': number;
  '3': number;
  '2': number;
  '1': number;
}

export const MISSING_REASONS = ['not_on_page', 'unreadable', 'other_currency', 'no_featured_offer', 'out_of_stock'] as const;
/** Why an applicable field is null (product-page-contract.md, `quality`). */
export type MissingReason = (typeof MISSING_REASONS)[number];

/**
 * The data-quality block. `version` is the observation format: 2 for observations read by a
 * version 2 parser, 1 for those stored before (their counts are null and `missing` empty: the
 * page is gone, so applicability cannot be told).
 */
export interface Quality {
  version: number;
  fields_read: number | null;
  fields_applicable: number | null;
  missing: { field: string; reason: MissingReason }[];
}

/** The current observation format. */
export const OBSERVATION_FORMAT_VERSION = 2;

/** The version 2 fields of a Product. */
export type ProductV2Fields = Pick<
  Product,
  | 'list_price'
  | 'subscribe_save_price'
  | 'coupon'
  | 'prime'
  | 'buy_box'
  | 'availability'
  | 'delivery'
  | 'feature_bullets'
  | 'description'
  | 'images'
  | 'categories'
  | 'rating_histogram'
  | 'quality'
>;

/** The version 2 fields of an observation stored before version 2: all null or empty, `quality.version` 1. */
export function version1Fields(): ProductV2Fields {
  return {
    list_price: null,
    subscribe_save_price: null,
    coupon: null,
    prime: null,
    buy_box: null,
    availability: null,
    delivery: null,
    feature_bullets: [],
    description: null,
    images: [],
    categories: [],
    rating_histogram: null,
    quality: { version: 1, fields_read: null, fields_applicable: null, missing: [] },
  };
}

export interface CategoryRank {
  rank: number;
  category: string;
}

export interface Bsr extends CategoryRank {
  subcategories: CategoryRank[];
}

/**
 * What the parser yields for a page before the read's identity (asin, url, observed_at) is attached.
 * The page kind is decided before any field is read (product-page-contract.md "Page kinds").
 */
export type PageParse =
  | { kind: 'product'; fields: ProductFields }
  | { kind: 'not_found' }
  | { kind: 'robot_check' | 'error_page' | 'degraded'; reason: string };

/** The page-derived fields of a Product. */
export type ProductFields = Omit<Product, 'asin' | 'marketplace' | 'url' | 'observed_at' | 'parser_version'>;
