/**
 * The search results observation: what one marketplace search results page yields
 * (`../shared/docs/search-page-contract.md`, "SearchResults" and "Item fields"). Money is in major
 * units of the marketplace currency; positions are 1-based within the page read.
 */
import type { MissingReason, Price } from './product.js';

/** `ok`: at least one result card; `no_results`: the "No results for …" page (an answer, charged). */
export type SearchStatus = 'ok' | 'no_results';

/** One card of the main result grid (search-page-contract.md "Item fields"). */
export interface SearchItem {
  /** 1-based index among the items of this page, sponsored included. */
  position: number;
  /** 1-based index among the non-sponsored items of this page; null for a sponsored item. */
  organic_position: number | null;
  sponsored: boolean;
  /** The card's `data-asin`, uppercased. */
  asin: string;
  /** `https://www.<domain>/dp/<ASIN>`. */
  url: string;
  title: string | null;
  brand: string | null;
  price: Price | null;
  list_price: Price | null;
  /** Average stars, 0–5. */
  rating: number | null;
  ratings_count: number | null;
  /** Lower bound of "N+ bought in past month". */
  bought_past_month: number | null;
  badges: string[];
  /** null when the card shows no price. */
  prime: boolean | null;
  coupon: string | null;
  delivery: string | null;
  image_url: string | null;
  variants_count: number | null;
}

/** Why an item field is null, per card (the reasons of product-page-contract.md `quality`). */
export interface SearchQuality {
  version: number;
  cards_seen: number;
  cards_read: number;
  missing: { position: number; field: string; reason: MissingReason }[];
}

/** The page-derived part of a SearchResults observation (no keyword, url or observed_at yet). */
export interface SearchPageFields {
  status: SearchStatus;
  /** Integer lower bound stated by the result-count line, or null. */
  total_results: number | null;
  results_text: string | null;
  items: SearchItem[];
  quality: SearchQuality;
}

/** One SearchResults observation as the API answers it. */
export interface SearchResults extends SearchPageFields {
  /** As posted: trimmed, inner whitespace collapsed, case kept. */
  keyword: string;
  marketplace: string;
  /** The results page read, 1-based. */
  page: number;
  /** `https://www.<domain>/s?k=<keyword>` plus `&page=<n>` when n > 1. */
  url: string;
  observed_at: string;
  parser_version: string;
}

/**
 * What the search parser yields for one page. Robot checks, interstitials, error pages and pages
 * without a result grid are not observations: the read failed (search-page-contract.md "Page kinds").
 */
export type SearchPageParse =
  | { kind: 'search'; fields: SearchPageFields }
  | { kind: 'robot_check' | 'error_page' | 'degraded'; reason: string };

/** The item fields in contract order (golden comparisons and the differential test walk these). */
export const SEARCH_ITEM_FIELDS = [
  'position', 'organic_position', 'sponsored', 'asin', 'url', 'title', 'brand', 'price', 'list_price',
  'rating', 'ratings_count', 'bought_past_month', 'badges', 'prime', 'coupon', 'delivery', 'image_url',
  'variants_count',
] as const satisfies readonly (keyof SearchItem)[];
