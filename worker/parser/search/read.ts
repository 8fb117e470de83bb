/**
 * Reads a search page's fields from its parts, on either tree (`view.ts`): the result-count line and
 * the kept result-grid parts in page order. Shared by the fast path and the whole-document path.
 */
import type { Marketplace } from '../../../core/marketplaces.js';
import type { MissingReason } from '../../../core/product.js';
import type { SearchItem, SearchPageFields, SearchQuality } from '../../../core/search.js';
import { cardAsin, isItemCard, isSponsored } from './cards.js';
import { readCardListPrice, readCardPrice, readCardPrime } from './item-offer.js';
import { readCardImage, readCardVariants } from './item-media.js';
import { readCardBought, readCardRating, readCardRatingsCount } from './item-reviews.js';
import { readCardBadges, readCardCoupon, readCardDelivery, readCardTitle } from './item-text.js';
import { isNoResultsText, parseTotalResults, readResultsText } from './result-count.js';
import type { View } from './view.js';

/** The search quality format version. */
export const SEARCH_QUALITY_VERSION = 1;

/** Item fields whose null is reported in `quality.missing` (the others are null whenever the card shows none). */
const REPORTED: readonly (keyof SearchItem)[] = ['title', 'price', 'rating', 'ratings_count', 'delivery', 'image_url'];

/** Reads one item card (its position numbers given). */
function readItem<E>(v: View<E>, card: E, marketplace: Marketplace, position: number, organic: number | null, sponsored: boolean, missing: SearchQuality['missing']): SearchItem {
  const asin = cardAsin(v, card)!;
  const { title, brand } = readCardTitle(v, card);
  const price = readCardPrice(v, card, marketplace);
  const item: SearchItem = {
    position,
    organic_position: organic,
    sponsored,
    asin,
    url: `https://${marketplace.domain}/dp/${asin}`,
    title,
    brand,
    price: price.price,
    list_price: price.shown ? readCardListPrice(v, card, marketplace) : null,
    rating: readCardRating(v, card),
    ratings_count: readCardRatingsCount(v, card),
    bought_past_month: readCardBought(v, card),
    badges: readCardBadges(v, card),
    // prime describes the offer whose price the item carries: null exactly when price is (RULINGS.md
    // prime: no price, or only one in another currency or a range, is no offer to describe).
    prime: readCardPrime(v, card, price.price !== null ? (price.el as E) : null),
    coupon: readCardCoupon(v, card),
    delivery: readCardDelivery(v, card),
    image_url: readCardImage(v, card),
    variants_count: readCardVariants(v, card),
  };
  for (const field of REPORTED) {
    if (item[field] !== null) continue;
    const reason: MissingReason = field === 'price' ? (price.reason ?? 'not_on_page') : 'not_on_page';
    missing.push({ position, field, reason });
  }
  return item;
}

/**
 * Reads the page's fields from its result-count line and its kept result-grid parts.
 * @returns the fields, or null when the page holds no item card (the caller decides the page kind)
 */
export function readSearchFields<E>(v: View<E>, countLine: E | null, parts: readonly E[], marketplace: Marketplace): SearchPageFields | null {
  const resultsText = readResultsText(v, countLine);
  const base = { total_results: parseTotalResults(resultsText), results_text: resultsText };
  if (isNoResultsText(resultsText)) {
    return { status: 'no_results', ...base, total_results: null, items: [], quality: { version: SEARCH_QUALITY_VERSION, cards_seen: parts.length, cards_read: 0, missing: [] } };
  }
  const cards = parts.filter((p) => isItemCard(v, p));
  if (cards.length === 0) return null;
  const missing: SearchQuality['missing'] = [];
  let organic = 0;
  const items = cards.map((card, i) => {
    const sponsored = isSponsored(v, card);
    return readItem(v, card, marketplace, i + 1, sponsored ? null : ++organic, sponsored, missing);
  });
  return { status: 'ok', ...base, items, quality: { version: SEARCH_QUALITY_VERSION, cards_seen: parts.length, cards_read: items.length, missing } };
}
