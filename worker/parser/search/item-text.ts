/**
 * A card's texts: `title`, `brand`, `badges`, `coupon`, `delivery` (search-page-contract.md "Item
 * fields"). Texts are as shown (text rules of product-page-contract.md); screen-reader-only copies
 * (`.a-offscreen`) are not shown text.
 */
import { CARD_COUPON_WORDS, DELIVERY_LINES, SHIPPING_COST_TAIL, NOT_COUPON_PHRASES, NOT_DELIVERY_PHRASES } from './words.js';
import { mainOfferOnly, OTHER_OFFER_BLOCKS } from './item-offer.js';
import { TITLE_HEADINGS } from './cards.js';
import { linesOf, textIn, type View } from './view.js';

/** A byline's lead word ("by Apple", "von Bosch"). */
const BYLINE = /^(?:by|von|par|di|por|door)\s+/i;
/** A release date shown beside a title ("Aug 1, 2008", "(1960)"). */
const RELEASE_DATE = /(?:^|\D)(?:1[89]|20)\d{2}\)?$/;

const hidden = <E>(v: View<E>) => (e: E): boolean => v.is(e, '.a-offscreen, .aok-hidden, .s-coupon-clipped');

/** Title and brand line of a card. */
export interface CardTitle {
  title: string | null;
  brand: string | null;
}

/**
 * Reads the title: the product name heading's text; where the card shows a brand line in its own
 * heading above the name (a heading without the product link), that line is the brand.
 */
export function readCardTitle<E>(v: View<E>, card: E): CardTitle {
  const heads = v.all(card, TITLE_HEADINGS).filter((h) => !v.closest(h, OTHER_OFFER_BLOCKS));
  if (heads.length === 0) return { title: null, brand: null };
  const linked = heads.find((h) => v.is(h, 'a h2, a h3') || v.one(h, 'a') !== null) ?? heads[0]!;
  // 2014 headings hold the title link and, beside it, the byline and binding: the link is the name.
  const name = v.one(linked, 'a.title') ?? linked;
  const title = textIn(v, name, hidden(v)) || null;
  const i = heads.indexOf(linked);
  const above = i > 0 ? heads[i - 1]! : null;
  const brand = above && v.one(above, 'a') === null ? textIn(v, above, hidden(v)) || null : null;
  return { title, brand: brand ?? bylineBrand(v, linked) };
}

/** The row that holds a pre-2019 card's title heading and its byline (2015–2018), or the 2014 heading. */
const TITLE_ROW = '.a-row.a-spacing-small, h3.title';

/**
 * The brand of a pre-2019 byline ("by Apple" under the title -> "Apple"). A contributor byline is not a
 * brand line (RULINGS.md title and brand): its names link to the contributor's page, or the title row
 * shows a release date beside it ("Aug 1, 2008", "(1960)"), as book, music, app and video cards do.
 */
function bylineBrand<E>(v: View<E>, heading: E): string | null {
  const row = v.is(heading, 'h3.title') ? heading : v.closest(heading, TITLE_ROW);
  if (!row) return null;
  const kids = v.kids(row).filter((k): k is E => typeof k !== 'string');
  const byline = kids.find((k) => BYLINE.test(textIn(v, k)));
  if (!byline || v.one(byline, 'a') !== null) return null;
  if (kids.some((k) => k !== byline && !v.one(k, TITLE_HEADINGS) && !v.is(k, TITLE_HEADINGS) && RELEASE_DATE.test(textIn(v, k)))) return null;
  return textIn(v, byline, hidden(v)).replace(BYLINE, '').trim() || null;
}

/**
 * Badge elements of a card: `a-badge` labels ("Best Seller", "Amazon's Choice", deal badges), the
 * 2025+ `rio-badge` labels, and the certification pills (`s-pc-badge`, "Small Business",
 * "Recycled materials +2 more"; their hidden side sheets are not shown).
 */
const BADGES = '.a-badge-label-inner, .a-badge-text, .rio-badge-label, .s-pc-badge, .s-pc-badge-text, .sx-bestseller-badge-primary';

/** Badge tails that name the category ("in Women's Jeans"): not part of the badge label. */
const CATEGORY_TAIL = /^(in|en|em|in der|dans|nella|nel|dans la|na|no)\b/i;

/** A 2017–2018 coupon drawn in badge styling ("Save 10%" + "with coupon"): a coupon, not a badge. */
function isCouponBadge<E>(v: View<E>, el: E): boolean {
  const holder = v.closest(el, '.sx-bestseller');
  const low = holder ? textIn(v, holder).toLowerCase() : '';
  return CARD_COUPON_WORDS.some((w) => low.includes(w));
}

/** Reads the badges: each badge label as shown, without an "in <category>" tail, in card order. */
export function readCardBadges<E>(v: View<E>, card: E): string[] {
  const out: string[] = [];
  for (const el of v.all(card, BADGES)) {
    const up = v.parent(el);
    if (up && v.closest(up, BADGES)) continue; // read with the badge that holds it
    if (v.closest(el, '.aok-hidden')) continue;
    if (isCouponBadge(v, el)) continue;
    const t = textIn(v, el, (e) => hidden(v)(e) || (v.is(e, '.a-badge-supplementary-text, .rio-badge-supplementary-text') && CATEGORY_TAIL.test(textIn(v, e))));
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

/**
 * Coupon components of a card: the 2019+ coupon component (its shown, unclipped half; the clipped
 * twin is hidden), and the 2017–2018 coupon drawn in badge styling (`.sx-bestseller`: "Save 10%" +
 * "with coupon").
 */
const COUPONS = '.s-coupon-unclipped, [data-cy="coupon-recipe"], .s-coupon-highlight-color, .sx-bestseller';

/** Reads the coupon text as shown ("Save 10% with coupon"), or null. */
export function readCardCoupon<E>(v: View<E>, card: E): string | null {
  for (const el of v.all(card, COUPONS)) {
    if (v.closest(el, '.s-coupon-clipped, .aok-hidden')) continue;
    const holder = v.is(el, '.s-coupon-highlight-color') ? (v.parent(el) ?? el) : el;
    const t = textIn(v, holder, hidden(v));
    const low = t.toLowerCase();
    if (!CARD_COUPON_WORDS.some((w) => low.includes(w))) continue;
    return NOT_COUPON_PHRASES.some((p) => low.includes(p)) ? null : t;
  }
  return null;
}

/** The delivery block of a card (2021+ layouts). */
const DELIVERY = '[data-cy="delivery-recipe"]';

/**
 * Reads the card's first delivery line as shown, or null (stock and release notices are not delivery
 * lines). 2021+ layouts: the first line of the delivery block. Earlier layouts have no delivery block:
 * their delivery line is the first line of the card's main offer that reads as one (`DELIVERY_LINES`:
 * "Get it by …", "FREE Shipping …", "$3.99 shipping", "Eligible for Shipping to …", "Recíbelo …"); in
 * the 2014 Formats table, the first row's fast-track and shipping notes.
 */
export function readCardDelivery<E>(v: View<E>, card: E): string | null {
  const block = v.one(card, DELIVERY);
  if (!block) return legacyDelivery(v, card);
  const line = linesOf(v, block, hidden(v))[0];
  if (!line) return null;
  const low = line.toLowerCase();
  if (NOT_DELIVERY_PHRASES.some((p) => low.includes(p))) return null;
  return line;
}

/** The 2014 Formats table's delivery notes (in its format cell, inline beside the format name). */
const TABLE_DELIVERY = '.toeFastTrack, .sss';

function legacyDelivery<E>(v: View<E>, card: E): string | null {
  const formatCell = v.one(card, 'td.tpType');
  const firstRow = formatCell ? v.parent(formatCell) : null;
  const mainOnly = mainOfferOnly(v);
  const skip = (e: E): boolean => hidden(v)(e) || v.is(e, `${TITLE_HEADINGS}, .a-popover-preload`) || mainOnly(e);
  const lines = firstRow ? v.all(firstRow, TABLE_DELIVERY).flatMap((el) => linesOf(v, el, skip)) : linesOf(v, card, skip);
  for (const line of lines) {
    if (DELIVERY_LINES.some((re) => re.test(line))) return line;
    // A shipping cost written after the price on the price's own row ("$29.99 + $0.55 shipping").
    const tail = SHIPPING_COST_TAIL.exec(line);
    if (tail) return tail[1]!;
  }
  return null;
}
