/**
 * The rest of the price block: `list_price`, `subscribe_save_price`, `coupon` and `prime`
 * (product-page-contract.md "Version 2 fields"). `price` itself is read by `price.ts`.
 */
import type { Marketplace } from '../../core/marketplaces.js';
import type { Coupon, Price } from '../../core/product.js';
import type { PageParts } from './page-parts.js';
import { COUPON_WORDS, PRIME_PHRASES, TRAILING_LINK_TEXTS, containsAny } from './locale.js';
import { HIDDEN_COPY, inSubscribeSave, otherOffer } from './offer.js';
import { CORE_IDS, parsePrice, priceText } from './price.js';
import { queryAll } from './query.js';
import { clean, textOf } from './text.js';
import { closest, matches, selectOne } from './select.js';

/** Where the buy box and price block may show a Prime badge (the "Try fast, free shipping" upsell beside the price included). */
const PRIME_SCOPES = ['price', 'unifiedPrice_feature_div', 'priceBadging_feature_div', 'buybox', 'primeUpsellPopover', ...CORE_IDS];
/** Containers of the buy box whose struck prices are the featured offer's reference price. */
const BUY_BOX_SCOPES = ['buybox', 'addToCart', 'mediaNoAccordion', 'buyBoxInner'];
/**
 * Rows of the featured offer that exist only for Prime-eligible offers: the Prime exclusive price row
 * ("Join Prime to buy this item at $8.09"), the buy box's Prime free-trial option, the older Prime
 * stripe above the buy form ("Prime members get free standard delivery"), and the 2012-14 buy box's
 * opt-in checkbox ("Yes, I want FREE Two-Day Shipping with Amazon Prime"; drawn by script, so it counts
 * even while hidden).
 */
const PRIME_ROWS = ['pep_feature_div', 'bbop', 'PrimeStripeContent', 'prime-rcx-subs-checkbox-outer'];

/**
 * The strike-through reference price (core price block's `.basisPrice`, the legacy `#listPrice` and
 * `#price` strike rows), the Subscribe & Save rows, the coupon badge, and Prime badges of the buy box.
 */
export const OFFER_PRICE_PARTS: PageParts = {
  ids: [...PRIME_ROWS, 'listPrice', 'listPriceValue', 'sns-base-price', 'subscriptionPrice', 'snsAccordionRowMiddle', 'priceblock_snsupsell_row', 'promoPriceBlockMessage_feature_div', 'priceBadging_feature_div'],
  idPrefixes: ['couponBadge', 'couponText'],
  // The legacy `#price` table is read only for its struck prices, Prime badges and shipping notes.
  scoped: {
    within: [...CORE_IDS, ...PRIME_SCOPES, ...BUY_BOX_SCOPES],
    classes: ['basisPrice', 'a-icon-prime', 'a-text-price', 'a-text-strike', 'priceBlockStrikePriceString'],
  },
  // `readPrime` searches the whole text of these for a Prime line ("Prime Member Price").
  textIds: { ids: ['price', ...CORE_IDS], phrases: PRIME_PHRASES },
};

const LIST_SOURCES: readonly string[][] = [
  CORE_IDS.flatMap((id) => [`#${id} .basisPrice`, `#${id} .a-text-price[data-a-strike="true"]`]),
  ['#listPrice', '#listPriceValue', '#price .priceBlockStrikePriceString', '#price .a-text-strike', ...BUY_BOX_SCOPES.map((id) => `#${id} .a-text-strike`)],
];

/** One price from a list of elements: every readable one must agree, else null. */
function agreed(els: readonly Element[], marketplace: Marketplace): Price | null | undefined {
  const texts = els.map((el) => priceText(selectOne(el, '.a-price') ?? el)).filter((t) => t !== '');
  if (texts.length === 0) return undefined;
  const prices = texts.map((t) => parsePrice(t, marketplace));
  const first = prices[0];
  if (!first || prices.some((p) => !p || p.amount !== first.amount)) return null;
  return first;
}

/** The struck-through reference price of the featured offer; null when none or not read with confidence. */
export function readListPrice(doc: Document, marketplace: Marketplace): Price | null {
  for (const sels of LIST_SOURCES) {
    const els = queryAll(doc, sels).filter((el) => !otherOffer(el) && !inSubscribeSave(el) && !closest(el, HIDDEN_COPY));
    const p = agreed(els, marketplace);
    if (p !== undefined) return p;
  }
  return null;
}

/**
 * The base Subscribe & Save price of the selected variant (`#sns-base-price`, the 2017-18 buy box
 * accordion's `#subscriptionPrice`, the S&S rows); null when not offered.
 */
export function readSubscribeSavePrice(doc: Document, marketplace: Marketplace): Price | null {
  for (const sel of ['#sns-base-price', '#subscriptionPrice']) {
    const base = queryAll(doc, [sel]).filter((el) => !otherOffer(el));
    const fromBase = agreed(base, marketplace);
    if (fromBase !== undefined) return fromBase;
  }
  const rows = queryAll(doc, ['#snsAccordionRowMiddle', '#priceblock_snsupsell_row']).filter((el) => !otherOffer(el) && !closest(el, HIDDEN_COPY));
  for (const row of rows) {
    const el = selectOne(row, '.a-price, .a-color-price');
    if (!el || closest(el, '.a-text-strike')) continue;
    const p = parsePrice(priceText(el), marketplace);
    if (p) return p;
  }
  return null;
}

const MONEY_IN_TEXT = /(?:R\$|US\$|CDN\$|C\$|A\$|\$|£|€|₹|￥|¥|EUR|BRL)\s?\d[\d.,]*|\d[\d.,]*\s?(?:€|EUR|円|\$)/;

/** Drops trailing link texts ("Terms", "Termos", "Details") of a badge. */
function withoutTerms(text: string): string {
  let t = text;
  for (let changed = true; changed; ) {
    changed = false;
    const lower = t.toLowerCase();
    for (const w of [...TRAILING_LINK_TEXTS, 'terms', 'termos', 'términos', 'bedingungen', 'conditions', 'termini']) {
      if (lower.endsWith(` ${w}`)) {
        t = clean(t.slice(0, t.length - w.length));
        changed = true;
      }
    }
  }
  return t;
}

/** The coupon badge of the featured offer: its text, and the percent or the amount it states. */
export function readCoupon(doc: Document, marketplace: Marketplace): Coupon | null {
  const labels = queryAll(doc, ['[id^="couponText"]']).filter((el) => !otherOffer(el) && !closest(el, HIDDEN_COPY));
  let text = labels.length ? withoutTerms(textOf(labels[0]!)) : '';
  if (!text) {
    for (const el of queryAll(doc, ['#promoPriceBlockMessage_feature_div', '[id^="couponBadge"]'])) {
      if (otherOffer(el)) continue;
      const t = withoutTerms(textOf(el, (c) => matches(c, HIDDEN_COPY)));
      if (t && containsAny(t.toLowerCase(), COUPON_WORDS)) {
        text = t;
        break;
      }
    }
  }
  if (!text) return null;
  const pct = /(\d{1,2}(?:[.,]\d+)?)\s*%/.exec(text);
  if (pct) return { text, percent: Number(pct[1]!.replace(',', '.')), amount: null };
  const money = MONEY_IN_TEXT.exec(text);
  const amount = money ? parsePrice(money[0], marketplace) : null;
  return { text, percent: null, amount };
}

/**
 * Whether the featured offer shows a Prime signal (a Prime badge in the price block or buy box, a
 * "FREE delivery with Amazon Prime" / Prime member price line); false when the page shows a featured
 * offer without one; null without a featured offer.
 * @param hasOffer whether the page shows a featured offer
 * @param deliveryText the featured offer's delivery message, if any
 */
export function readPrime(doc: Document, hasOffer: boolean, deliveryText: string | null): boolean | null {
  if (!hasOffer) return null;
  const badges = queryAll(doc, PRIME_SCOPES.map((id) => `#${id} .a-icon-prime`));
  if (badges.some((b) => !otherOffer(b) && !closest(b, '.a-popover-preload') && !matches(b, '.aok-hidden, .olp-prime-badge'))) return true;
  const rows = queryAll(doc, PRIME_ROWS.map((id) => `#${id}`)).filter((el) => !otherOffer(el));
  // A membership sign-up ingress ("Try Prime and start saving today") is an advertisement, not the offer's signal.
  if (rows.some((el) => !matches(el, '.prime-signup-ingress') && /\bprime\b/i.test(textOf(el)))) return true;
  const priceLines = queryAll(doc, ['#price', '#priceBadging_feature_div', ...CORE_IDS.map((id) => `#${id}`)]).filter((el) => !otherOffer(el));
  const texts = [...priceLines.map((el) => textOf(el, (c) => matches(c, HIDDEN_COPY))), deliveryText ?? ''];
  return texts.some((t) => containsAny(t.toLowerCase(), PRIME_PHRASES));
}
