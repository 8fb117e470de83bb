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
