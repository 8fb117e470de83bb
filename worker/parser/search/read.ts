/**
 * Reads a search page's fields from its parts, on either tree (`view.ts`): the result-count line and
 * the kept result-grid parts in page order. Shared by the fast path and the whole-document path.
 */
import type { Marketplace } from '../../../core/marketplaces.js';
import type { MissingReason } from '../../../core/product.js';
import type { SearchItem, SearchPageFields, SearchQuality } from '../../../core/search.js';
import { cardAsin, isItemCard, isSponsored, TITLE_HEADINGS } from './cards.js';
import { readCardListPrice, readCardPrice, readCardPrime, type CardListPrice, type CardPrice } from './item-offer.js';
import { CARD_IMAGE, readCardImage, readCardVariants } from './item-media.js';
import { mentionsBought, readCardBought, readCardRating, readCardRatingsCount } from './item-reviews.js';
import { readCardBadges, readCardCoupon, readCardDelivery, readCardTitle } from './item-text.js';
import { isNoResultsText, parseTotalResults, readResultsText } from './result-count.js';
import { textIn, type View } from './view.js';

/** The search quality format version. */
export const SEARCH_QUALITY_VERSION = 1;

/**
 * Item fields every item card can show: their null is always reported in `quality.missing`
 * (`not_on_page` when the card shows none, else why it was not read).
 */
const ALWAYS_REPORTED: readonly (keyof SearchItem)[] = ['title', 'price', 'rating', 'ratings_count', 'delivery', 'image_url'];

/**
 * What shows each field on a card, for nulls whose cause is "shown but not read" (`unreadable`): a
 * star icon without a readable average, a count link beside the stars without a readable count, a
 * card image whose `src` is no https URL, a colour row without a countable tail or swatch, a title
 * heading without text. The other optional fields (brand, list price, bought past month, coupon,
 * variants) are null whenever the card shows none; `prime` is null exactly when `price` is (its reason
 * is the price's); `organic_position` is null for sponsored items by rule.
 */
const SHOWN_BY: Partial<Record<keyof SearchItem, string>> = {
  title: TITLE_HEADINGS,
  rating: '[class*="a-star"], [class*="spr_stars"]',
  ratings_count: 'a[href*="customerReviews"], a[href*="product-reviews"]',
  image_url: CARD_IMAGE,
  variants_count: '.s-color-swatch-container, [data-cy="color-swatches"], .s-color-twister-list-item',
};

/** An element that draws something: an image, an icon, or text (an empty container shows nothing). */
function isDrawn<E>(v: View<E>, el: E): boolean {
  return v.is(el, 'img, i') || textIn(v, el) !== '' || v.one(el, 'img, i') !== null;
}

/** Why a null item field is null, or null when it is not reported (see `ALWAYS_REPORTED`, `SHOWN_BY`). */
function missingReason<E>(v: View<E>, card: E, field: keyof SearchItem, price: CardPrice, list: CardListPrice, boughtShown: boolean): MissingReason | null {
  if (field === 'price') return price.reason ?? 'unreadable';
  if (field === 'list_price') return list.reason;
  if (field === 'bought_past_month') return boughtShown ? 'unreadable' : null;
  const shownBy = SHOWN_BY[field];
  if (shownBy && v.all(card, shownBy).some((el) => isDrawn(v, el))) return 'unreadable';
  return ALWAYS_REPORTED.includes(field) ? 'not_on_page' : null;
}

/** Nullable item fields checked for a `quality.missing` entry (prime and organic_position never are). */
const CHECKED: readonly (keyof SearchItem)[] = [...ALWAYS_REPORTED, 'list_price', 'bought_past_month', 'variants_count'];

/** Reads one item card (its position numbers given). */
function readItem<E>(v: View<E>, card: E, marketplace: Marketplace, position: number, organic: number | null, sponsored: boolean, missing: SearchQuality['missing']): SearchItem {
  const asin = cardAsin(v, card)!;
  const { title, brand } = readCardTitle(v, card);
  const price = readCardPrice(v, card, marketplace);
  const boughtShown = mentionsBought(v, card);
  const list: CardListPrice = price.shown ? readCardListPrice(v, card, marketplace) : { price: null, reason: null };
  const item: SearchItem = {
    position,
    organic_position: organic,
    sponsored,
    asin,
    url: `https://${marketplace.domain}/dp/${asin}`,
    title,
    brand,
    price: price.price,
    list_price: list.price,
    rating: readCardRating(v, card),
    ratings_count: readCardRatingsCount(v, card),
    bought_past_month: boughtShown ? readCardBought(v, card) : null,
    badges: readCardBadges(v, card),
    // prime describes the offer whose price the item carries: null exactly when price is (RULINGS.md
    // prime: no price, or only one in another currency or a range, is no offer to describe).
    prime: readCardPrime(v, card, price.price !== null ? (price.el as E) : null),
    coupon: readCardCoupon(v, card),
    delivery: readCardDelivery(v, card),
    image_url: readCardImage(v, card),
    variants_count: readCardVariants(v, card),
  };
  for (const field of CHECKED) {
    if (item[field] !== null) continue;
    const reason = missingReason(v, card, field, price, list, boughtShown);
    if (reason) missing.push({ position, field, reason });
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
