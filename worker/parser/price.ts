/** `price`: the featured offer's price to pay (product-page-contract.md "price"). */
import type { Marketplace } from '../../core/marketplaces.js';
import type { Price } from '../../core/product.js';
import type { PageParts } from './page-parts.js';
import { MONEY, TAX_NOTES, USED_OFFER_PHRASES, containsAny } from './locale.js';
import { query, queryAll } from './query.js';
import { clean, textOf } from './text.js';

/** Containers of the modern core price block (ids). */
const CORE_IDS = ['corePrice_feature_div', 'corePriceDisplay_desktop_feature_div', 'corePrice_desktop', 'apex_desktop', 'apex_offerDisplay_desktop'];
const CORE = CORE_IDS.map((id) => `#${id}`);

/**
 * Where a price may be read, most specific first. Each entry is a list of selectors; the first entry
 * that yields at least one readable price text decides: the core price block (`CORE_PRICE_TO_PAY`) by
 * its first price to pay, every other entry only when all its prices agree (several distinct values ->
 * ambiguous -> null).
 */
const CORE_PRICE_TO_PAY = CORE.flatMap((c) => [`${c} .priceToPay`, `${c} .apexPriceToPay`]);
const SOURCES: readonly string[][] = [
  CORE_PRICE_TO_PAY,
  ['[id^="newAccordionRow"] #corePrice_feature_div .reinventPriceAccordionT2'],
  ['#priceblock_dealprice'],
  ['#priceblock_saleprice'],
  ['#priceblock_ourprice'],
  ['#kindle-price'],
  ['#tmmSwatches .a-button-selected .a-color-price'],
  [
    '#buyNewSection .offer-price', '#newBuyBoxPrice', '#mediaNoAccordion .header-price', '#newBuyingOption .header-price',
    '#newOfferAccordionRow .header-price', '#buybox #price', '#buybox .offer-price',
  ],
  ['#price_inside_buybox'],
  ['.priceLarge', '#actualPriceValue'],
];

/**
 * What `SOURCES` reads (ancestors such as `newAccordionRow*` / `usedAccordionRow*` come with it): in the
 * core price containers only the price elements the core selectors name, the other containers in full,
 * the buy box's offer-section headers (`notFeatured` reads them); the markers of a buy box without a
 * featured offer only for their presence.
 */
export const PRICE_PARTS: PageParts = {
  ids: [
    'priceblock_dealprice', 'priceblock_saleprice', 'priceblock_ourprice', 'kindle-price', 'tmmSwatches',
    'buyNewSection', 'newBuyBoxPrice', 'mediaNoAccordion', 'newBuyingOption', 'newOfferAccordionRow', 'price',
    'price_inside_buybox', 'actualPriceValue',
  ],
  classes: ['priceLarge', 'offer-price', 'rbbHeader', 'accordion-header'],
  shellIds: [...CORE_IDS, 'unqualifiedBuyBox', 'buybox-see-all-buying-choices', 'usedOnlyBuybox'],
  scoped: { within: CORE_IDS, classes: ['priceToPay', 'apexPriceToPay', 'reinventPriceAccordionT2'] },
};

/** Offers that are never the featured new offer: used, trade-in, rental, other sellers' lists. */
const NOT_FEATURED = [
  '[id*="usedAccordionRow"]', '[id*="usedOfferAccordionRow"]', '#usedBuySection', '#usedBuyBox', '#usedbuyBox',
  '#usedOnlyBuybox', '[id^="buyboxused"]', '[id*="tradeIn"]', '[id*="rentOfferAccordionRow"]', '#aod-container',
  '#unqualifiedBuyBox', '.mbcBox',
].join(', ');

/** Subscribe & Save rows of the core price block: their price to pay is not the one-time price. */
const SUBSCRIBE_SAVE = '[id^="sns"], [id*="subscribe"], [id*="Subscribe"], [class*="subscribe"], [class*="Subscribe"]';

/** An offer section of the buy box (accordion row, buy-box section) and its header ("Buy new", "Buy used"). */
const OFFER_SECTION = '.rbbSection, .a-accordion-row-container, .accordion-row';
const OFFER_HEADER = '.rbbHeader, .accordion-header';

/**
 * Buy boxes without a featured offer: "See All Buying Options" only (other sellers' offers), or a
 * used offer only. Then the selected format's swatch and the old buy-box prices are another offer's.
 */
const NO_FEATURED_OFFER = ['#unqualifiedBuyBox', '#buybox-see-all-buying-choices', '#usedOnlyBuybox'];

/** True when a price element belongs to an offer that is not the featured new one (by id, or by its section's "Buy used" header). */
function notFeatured(el: Element): boolean {
  if (el.closest(NOT_FEATURED)) return true;
  const section = el.closest(OFFER_SECTION);
  const header = section?.querySelector(OFFER_HEADER);
  return !!header && containsAny(textOf(header).toLowerCase(), USED_OFFER_PHRASES);
}

/** Text of a price element: the screen-reader copy when present, else the visible parts joined tightly. */
function priceText(el: Element): string {
  if (!el.matches('.a-price')) return textOf(el);
  const off = el.querySelector(':scope > .a-offscreen');
  const t = off ? textOf(off) : '';
  if (t) return t;
  const visible = el.querySelector(':scope > [aria-hidden="true"]');
  if (!visible) return '';
  const parts = visible.querySelectorAll('.a-price-symbol, .a-price-whole, .a-price-decimal, .a-price-fraction');
  if (!parts.length) return textOf(visible);
  return [...parts]
    .map((p) => (p.matches('.a-price-whole') ? textOf(p, (c) => c.matches('.a-price-decimal')) : textOf(p)).replace(/\s+/g, ''))
    .join(' ')
    .replace(/(\d) (?=[.,])|([.,]) (?=\d)/g, '$1$2');
}

/**
 * Parses a shown price (`$13.99`, `1.234,56 €`, `R$ 19,90`, `￥ 2,814 (税込)`) in the marketplace's currency.
 * @returns null for ranges, other currencies, or anything not read with confidence.
 */
export function parsePrice(text: string, marketplace: Marketplace): Price | null {
  const money = MONEY[marketplace.code];
  let t = clean(text);
  for (const note of TAX_NOTES) t = t.split(note).join(' ');
  t = clean(t);
  const nums = t.match(/\d[\d.,\s\u00a0\u202f]*\d|\d/g);
  if (!nums || nums.length !== 1) return null; // none, or a range / several amounts
  const num = nums[0]!.replace(/[\s\u00a0\u202f]+$/, '');
  const token = clean(t.replace(num, ' ')).toLowerCase();
  if (!money.tokens.includes(token)) return null;
  const amount = parseAmount(num, money.decimal);
  return amount === null ? null : { amount, currency: marketplace.currency };
}

/** `1.234,56` with decimal `,` -> 1234.56; grouping must be regular, at most 2 decimals. */
function parseAmount(num: string, decimal: '.' | ','): number | null {
  const group = decimal === '.' ? '[,\\s\\u00a0\\u202f]' : '[.\\s\\u00a0\\u202f]';
  const dec = decimal === '.' ? '\\.' : ',';
  const indian = decimal === '.' ? '|\\d{1,2}(?:,\\d{2})+,\\d{3}' : '';
  const re = new RegExp(`^(\\d{1,3}(?:${group}\\d{3})+${indian}|\\d+)(?:${dec}(\\d{1,2}))?$`);
  const m = re.exec(num.trim());
  if (!m) return null;
  const whole = m[1]!.replace(/[^\d]/g, '');
  const frac = m[2] ?? '';
  const n = Number(frac ? `${whole}.${frac}` : whole);
  return Number.isFinite(n) ? n : null;
}

/**
 * Reads the price to pay of the featured offer, or null: the first one-time price to pay of the core
 * price block (a Prime member price shown there included; Subscribe & Save rows left out), else the
 * first older layout's price whose elements agree. Two core blocks that show different prices are
 * ambiguous (null). A buy box without a featured offer (only other sellers' or used offers) has no
 * price outside the core block.
 */
export function readPrice(doc: Document, marketplace: Marketplace): Price | null {
  const noFeatured = query(doc, NO_FEATURED_OFFER) !== null;
  for (const sels of SOURCES) {
    const core = sels === CORE_PRICE_TO_PAY;
    if (noFeatured && !core) return null;
    let els = queryAll(doc, sels).filter((el) => !notFeatured(el) && !(core && el.closest(SUBSCRIBE_SAVE)));
    if (els.some((el) => el.closest('.a-price-range'))) return null; // `R$169,00 - R$199,90`: no one price
    if (core && els.length > 1) {
      const block = els[0]!.closest(CORE.join(', '));
      if (els.every((el) => el.closest(CORE.join(', ')) === block)) els = els.slice(0, 1);
    }
    const texts = els.map(priceText).filter((t) => t !== '');
    if (texts.length === 0) continue;
    const prices = texts.map((t) => parsePrice(t, marketplace));
    const first = prices[0];
    if (!first) return null;
    if (prices.some((p) => !p || p.amount !== first.amount)) return null;
    return first;
  }
  return null;
}
