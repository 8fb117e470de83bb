/** `rating` and `ratings_count` of the product itself (product-page-contract.md "rating", "ratings_count"). */
import type { PageParts } from './page-parts.js';
import { RATING_JA_PREFIX, RATING_OUT_OF_WORDS } from './locale.js';
import { query } from './query.js';
import { clean, parseGroupedInt, textOf } from './text.js';
import { selectAll, selectOne } from './select.js';

const OUT_OF = new RegExp(`(\\d(?:[.,]\\d{1,2})?)\\s*(?:${RATING_OUT_OF_WORDS.join('|')})\\s*5(?!\\d)`, 'i');
const JA = new RegExp(`${RATING_JA_PREFIX}\\s*(\\d(?:[.,]\\d{1,2})?)`);

/** Parses a star phrase (`4.7 out of 5 stars`, `4,6 von 5 Sternen`, `5つ星のうち4.4`); null when absent. */
export function parseRating(text: string): number | null {
  const t = clean(text);
  const m = JA.exec(t) ?? OUT_OF.exec(t);
  if (!m) return null;
  const n = Number(m[1]!.replace(',', '.'));
  return n >= 1 && n <= 5 ? n : null;
}

/** The review summary blocks (the 2010s summary under the title is `.crAvgStars`). */
export const RATING_PARTS = {
  ids: ['averageCustomerReviews', 'averageCustomerReviews_feature_div', 'acrPopover'],
  classes: ['crAvgStars'],
} as const satisfies PageParts;
const SUMMARY = RATING_PARTS.ids.map((id) => `#${id}`);

/**
 * The product's own review summary block (the first one; carousels are never read). The 2010s
 * `.crAvgStars` summaries name their product (`.asinReviewsSummary[name]`): one naming another ASIN
 * than the page's belongs to a carousel item, even when it comes first.
 */
function summary(doc: Document, asin: string | null): Element | null {
  const own = query(doc, SUMMARY);
  if (own) return own;
  for (const box of selectAll(doc, '.crAvgStars')) {
    const named = selectOne(box, '.asinReviewsSummary')?.getAttribute('name')?.trim().toUpperCase();
    if (!named || !asin || named === asin) return box;
  }
  return null;
}

/**
 * Reads the average rating of the product.
 * @param asin the page's own ASIN, when it shows one
 */
export function readRating(doc: Document, asin: string | null): number | null {
  const box = summary(doc, asin);
  if (!box) return null;
  const holders = [box, ...selectAll(box, '#acrPopover, .reviewCountTextLinkedHistogram, [title]')];
  for (const el of holders) {
    const r = parseRating(el.getAttribute('title') ?? '');
    if (r !== null) return r;
  }
  for (const el of selectAll(box, '.a-icon-alt, .a-icon-star, .a-icon-star-mini')) {
    const r = parseRating(textOf(el));
    if (r !== null) return r;
  }
  return null;
}

/**
 * Reads the number of ratings shown beside the stars.
 * @param asin the page's own ASIN, when it shows one
 */
export function readRatingsCount(doc: Document, asin: string | null): number | null {
  const box = summary(doc, asin);
  if (!box) return null;
  // The count's own element, else the first reviews link that shows a number and is not the stars' link.
  const el =
    selectOne(box, '#acrCustomerReviewText') ??
    [...selectAll(box, 'a[href*="product-reviews"]')].find((a) => /\d/.test(textOf(a)) && parseRating(textOf(a)) === null);
  if (!el) return null;
  const t = textOf(el);
  if (!/\d/.test(t)) return null;
  return parseGroupedInt(t);
}
