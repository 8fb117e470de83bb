/** `price`: the featured offer's price to pay (product-page-contract.md "price"). */
import type { Marketplace } from '../../core/marketplaces.js';
import type { Price } from '../../core/product.js';
import type { PageParts } from './page-parts.js';
import { FREE_PRICE_TEXTS, MONEY, TAX_NOTES, USED_OFFER_PHRASES, containsAny } from './locale.js';
import { inSubscribeSave, otherOffer } from './offer.js';
import { query, queryAll } from './query.js';
import { clean, textOf } from './text.js';
import { closest, matches, selectAll, selectOne } from './select.js';

/** Containers of the modern core price block (ids). */
export const CORE_IDS = ['corePrice_feature_div', 'corePriceDisplay_desktop_feature_div', 'corePrice_desktop', 'apex_desktop', 'apex_offerDisplay_desktop'];
const CORE = CORE_IDS.map((id) => `#${id}`);

/**
 * Where a price may be read, most specific first. Each entry is a list of selectors; the first entry
 * that yields at least one readable price text decides (several distinct values -> ambiguous -> null).
 */
const SOURCES: readonly string[][] = [
  CORE.flatMap((c) => [`${c} .priceToPay`, `${c} .apexPriceToPay`]),
  ['[id^="newAccordionRow"] #corePrice_feature_div .reinventPriceAccordionT2'],
  ['#priceblock_dealprice'],
  ['#priceblock_saleprice'],
  ['#priceblock_ourprice'],
  ['#kindle-price'],
  ['#tmmSwatches .a-button-selected .a-color-price', '#tmmSwatches .swatchElement.selected .slot-price .a-color-price'],
  [
    '#buyNewSection .offer-price', '#newBuyBoxPrice', '#mediaNoAccordion .header-price', '#newBuyingOption .header-price',
    '#newOfferAccordionRow .header-price', '#booksHeaderSection #price', '#buybox .offer-price',
  ],
  ['#price_inside_buybox'],
  // The 2012-14 radio buy box (Buy New / Rent / Used): the checked section's header price.
  ['#bb_section .bb_price'],
  ['.priceLarge', '#actualPriceValue'],
];

/**
 * What `SOURCES` reads (ancestors such as `newAccordionRow*` / `usedAccordionRow*` come with it): in the
 * core price containers only the price elements the core selectors name, the other containers in full,
 * and the buy box's offer-section headers ("Buy new" / "Buy used", read by `usedSection`).
 */
export const PRICE_PARTS: PageParts = {
  ids: [
    'priceblock_dealprice', 'priceblock_saleprice', 'priceblock_ourprice', 'kindle-price', 'tmmSwatches',
    'buyNewSection', 'newBuyBoxPrice', 'mediaNoAccordion', 'newBuyingOption', 'price_inside_buybox', 'actualPriceValue',
    'newOfferAccordionRow', 'booksHeaderSection',
  ],
  classes: ['priceLarge', 'offer-price', 'rbbHeader', 'accordion-header'],
  shellIds: [...CORE_IDS, 'usedBuySection', 'usedbuyBox', 'usedBuyBox', 'unqualifiedBuyBox', 'desktop_qualifiedBuyBox', 'qualifiedBuybox', 'snsAccordionRowMiddle', 'sns-base-price'],
  shellIdPrefixes: ['usedAccordionRow', 'newAccordionRow'],
  scoped: { within: [...CORE_IDS, 'bb_section'], classes: ['priceToPay', 'apexPriceToPay', 'reinventPriceAccordionT2', 'pricePerUnit', 'bb_price'] },
};

/** Unit prices (per count / kg). */
const UNIT_PRICE = '.pricePerUnit';
/** Containers that show the featured new offer in the buy box. */
const NEW_OFFER = ['#desktop_qualifiedBuyBox', '#qualifiedBuybox', '[id^="newAccordionRow"]', '#buyNewSection', '#newBuyBoxPrice', '#price_inside_buybox', '#newOfferAccordionRow'];
/** Containers of a buy box that holds a used / other-seller offer. */
const USED_OFFER = ['#usedBuySection', '#usedbuyBox', '#usedBuyBox', '[id^="usedAccordionRow"]', '#unqualifiedBuyBox'];

/** Text of a price element: the screen-reader copy when present, else the visible parts joined tightly. */
export function priceText(el: Element): string {
  if (!matches(el, '.a-price')) return textOf(el);
  const off = selectOne(el, ':scope > .a-offscreen');
  const t = off ? textOf(off) : '';
  if (t) return t;
  const visible = selectOne(el, ':scope > [aria-hidden="true"]');
  if (!visible) return '';
  const parts = selectAll(visible, '.a-price-symbol, .a-price-whole, .a-price-decimal, .a-price-fraction');
  if (!parts.length) return textOf(visible);
  return [...parts]
    .map((p) => (matches(p, '.a-price-whole') ? textOf(p, (c) => matches(c, '.a-price-decimal')) : textOf(p)).replace(/\s+/g, ''))
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

/** An offer section of the buy box (accordion row, buy-box section) and its header ("Buy new", "Buy used"). */
const OFFER_SECTION = '.rbbSection, .a-accordion-row-container, .accordion-row';
const OFFER_HEADER = '.rbbHeader, .accordion-header';

/** True when a price sits in a buy-box section headed as a used offer ("Buy used", "Gebraucht kaufen", …), whatever its ids. */
function usedSection(el: Element): boolean {
  const header = selectOne(closest(el, OFFER_SECTION), OFFER_HEADER);
  return !!header && containsAny(textOf(header).toLowerCase(), USED_OFFER_PHRASES);
}

/** True when a price sits in a section of the 2012-14 radio buy box (`.rbb_section`) that is not the checked one. */
function unselectedRadioSection(el: Element): boolean {
  const section = closest(el, '.rbb_section');
  return !!section && !matches(section, '.selected');
}

/** True when the buy box holds only a used / other-seller offer (its price is never the featured one's). */
function usedOfferOnly(doc: Document): boolean {
  // By id (the document's id index): a document-wide selector query walks every node.
  return query(doc, USED_OFFER) !== null && query(doc, NEW_OFFER) === null;
}

/** How the price to pay was found: read, not shown, shown but not read with confidence, or shown in another currency. */
export type PriceState = 'read' | 'absent' | 'unreadable' | 'other_currency';

/** Why a shown price text did not parse: another marketplace's currency, else unreadable (ranges, several amounts). */
function unreadState(text: string, marketplace: Marketplace): PriceState {
  const t = clean(text).toLowerCase();
  const other = Object.entries(MONEY).some(
    ([code, m]) => code !== marketplace.code && m.tokens.some((tok) => !MONEY[marketplace.code].tokens.includes(tok) && t.includes(tok)),
  );
  return other ? 'other_currency' : 'unreadable';
}

/**
 * Reads the price to pay of the featured offer and how it was found. Prices in Subscribe & Save rows,
 * unit prices and other offers' rows are never it, so on a page with one-time and Subscribe & Save
 * options the one-time price is what remains (a Prime member price shown as the core price is the
 * price). The first source with any price decides; its prices must agree (a range such as
 * `R$169,00 - R$199,90` shows two -> null); an offer whose price says it costs nothing ("Free Download")
 * is 0. A buy box holding only a used / other-seller offer has no
 * featured offer: null.
 */
export function readPriceState(doc: Document, marketplace: Marketplace): { price: Price | null; state: PriceState } {
  if (usedOfferOnly(doc)) return { price: null, state: 'absent' };
  for (const sels of SOURCES) {
    const texts: string[] = [];
    for (const el of queryAll(doc, sels)) {
      if (otherOffer(el) || inSubscribeSave(el) || closest(el, UNIT_PRICE) || usedSection(el) || unselectedRadioSection(el)) continue;
      const t = priceText(el);
      if (t) texts.push(t);
    }
    if (texts.length === 0) continue;
    const prices = texts.map((t) => (FREE_PRICE_TEXTS.includes(clean(t).toLowerCase().replace(/\.$/, '')) ? { amount: 0, currency: marketplace.currency } : parsePrice(t, marketplace)));
    const first = prices[0];
    if (!first) return { price: null, state: unreadState(texts[0]!, marketplace) };
    if (prices.some((p) => !p || p.amount !== first.amount)) return { price: null, state: 'unreadable' };
    return { price: first, state: 'read' };
  }
  return { price: null, state: 'absent' };
}

/** Reads the price to pay of the featured offer, or null (see `readPriceState`). */
export function readPrice(doc: Document, marketplace: Marketplace): Price | null {
  return readPriceState(doc, marketplace).price;
}
