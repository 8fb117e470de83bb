/** A card's `rating`, `ratings_count` and `bought_past_month` (search-page-contract.md "Item fields"). */
import { parseRating } from '../rating.js';
import { clean } from '../text.js';
import { BOUGHT_PATTERNS, BOUGHT_WORDS, RATING_ZH } from './words.js';
import { OTHER_OFFER_BLOCKS } from './item-offer.js';
import { linesOf, rawText, textIn, type View } from './view.js';

/**
 * Reads the average stars ("4.5 out of 5 stars", "5つ星のうち4.4", the zh_TW interface's "4.3 顆星，最高
 * 5 顆星"), from the star icon's text or an `aria-label`, or (2014 star sprites) the star link's `alt`.
 */
export function readCardRating<E>(v: View<E>, card: E): number | null {
  for (const el of v.all(card, '.a-icon-alt, [aria-label], a[alt]')) {
    const t = v.is(el, '.a-icon-alt') ? textIn(v, el) : (v.attr(el, 'aria-label') ?? v.attr(el, 'alt') ?? '');
    const r = parseRating(t) ?? parseZhRating(t);
    if (r !== null) return r;
  }
  return null;
}

/** "4.3 顆星，最高 5 顆星" -> 4.3; null when not that phrase. */
function parseZhRating(text: string): number | null {
  const m = RATING_ZH.exec(clean(text));
  const n = m ? Number(m[1]!) : NaN;
  return n >= 1 && n <= 5 ? n : null;
}

/**
 * A shown count: grouped digits ("1,234", "1.234", "1 234"), or compact with a unit ("12K" -> 12000,
 * "13.2K" -> 13200, "1,2 mil" -> 1200, "1.5万" -> 15000). Null when not a count.
 */
export function parseCount(text: string): number | null {
  const t = clean(text).replace(/[()]/g, '').trim();
  const compact = /^([\d]+(?:[.,]\d+)?)\s*([kKmM]|mil|万|千|萬)\+?$/.exec(t);
  if (compact) {
    const unit = compact[2]!.toLowerCase();
    const mult = unit === 'k' || unit === 'mil' || unit === '千' ? 1000 : unit === 'm' ? 1_000_000 : 10_000;
    const n = Number(compact[1]!.replace(',', '.')) * mult;
    return Number.isFinite(n) ? Math.round(n) : null;
  }
  const plain = /^(\d{1,3}(?:[,.\s\u00a0\u202f]\d{3})+|\d+)\+?$/.exec(t);
  if (!plain) return null;
  const n = Number(plain[1]!.replace(/[^\d]/g, ''));
  return Number.isSafeInteger(n) ? n : null;
}

/** Reads the number of ratings shown beside the stars, or null. */
export function readCardRatingsCount<E>(v: View<E>, card: E): number | null {
  const block = v.one(card, '[data-cy="reviews-block"], .a-row.a-size-small, .a-row.a-spacing-top-micro') ?? card;
  const links = v.all(block, 'a[href*="customerReviews"], a[href*="#customerReviews"], a[href*="product-reviews"]');
  for (const a of links) {
    const n = parseCount(textIn(v, a));
    if (n !== null) return n;
  }
  for (const el of v.all(block, '.s-underline-text, span[aria-label]')) {
    if (v.closest(el, OTHER_OFFER_BLOCKS)) continue;
    const n = parseCount(textIn(v, el));
    if (n !== null) return n;
  }
  return null;
}

/** "Bought in past month" wording in any language (`BOUGHT_WORDS`), whitespace-tolerant. */
const BOUGHT_HINT = new RegExp(BOUGHT_WORDS.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+')).join('|'), 'i');

/** True when the card shows "bought in past month" wording (read or not). */
export function mentionsBought<E>(v: View<E>, card: E): boolean {
  return BOUGHT_HINT.test(rawText(v, card));
}

/** Reads the lower bound of "N+ bought in past month" (localized), or null; call it when `mentionsBought`. */
export function readCardBought<E>(v: View<E>, card: E): number | null {
  for (const t of linesOf(v, card)) {
    for (const re of BOUGHT_PATTERNS) {
      const m = re.exec(t);
      if (m) return parseCount(m[1]!);
    }
  }
  return null;
}
