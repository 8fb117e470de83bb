/**
 * A card's main offer: `price`, `list_price`, `prime` (search-page-contract.md "Item fields"). The
 * main offer is the card's first price block; secondary-offer rows ("Other format", "More Buying
 * Choices", a second "Get it faster" offer) are other offers and never read.
 */
import type { Marketplace } from '../../../core/marketplaces.js';
import type { MissingReason, Price } from '../../../core/product.js';
import { MONEY } from '../locale.js';
import { parsePrice } from '../price.js';
import { clean } from '../text.js';
import { CARD_PRIME_PHRASES, INSTALLMENT_PATTERN, LIST_PRICE_LABELS, NO_FEATURED_OFFER_PHRASES, OTHER_PRODUCT_PRICE_LABELS, RENT_WORDS } from './words.js';
import { textIn, type View } from './view.js';

/** Blocks of other offers inside a card. */
export const OTHER_OFFER_BLOCKS = '[data-cy="secondary-offer-recipe"], [data-cy="multi-offer-display"]';

/** The price to pay and how it was found. */
export interface CardPrice {
  price: Price | null;
  /** The card shows a price of its main offer (read or not). */
  shown: boolean;
  /** Why `price` is null when it is. */
  reason: MissingReason | null;
  /** The shown main price element (the list price is read beside it). */
  el: unknown;
}

/** The list price, and why it is null when the card shows one that could not be read. */
export interface CardListPrice {
  price: Price | null;
  /** Set when a list price is shown but not read (`unreadable`, `other_currency`); null otherwise. */
  reason: MissingReason | null;
}

/** Text of a price element: its screen-reader copy (inside it, or beside a 2018 `.sx-price`), else its visible text. */
function aPriceText<E>(v: View<E>, el: E): string {
  let off = v.one(el, '.a-offscreen');
  if (!off && v.is(el, '.sx-price')) {
    const holder = v.closest(el, 'a') ?? v.parent(el);
    off = holder ? v.one(holder, '.a-offscreen') : null;
  }
  const t = off ? textIn(v, off) : '';
  return t || textIn(v, el);
}

/** True when the element sits inside another offer's block of the card. */
function inOtherOffer<E>(v: View<E>, el: E, card: E): boolean {
  const block = v.closest(el, OTHER_OFFER_BLOCKS);
  return block !== null && block !== card;
}

/** Text of the row an element sits in (its closest block ancestor inside the card), lower-case. */
function rowText<E>(v: View<E>, el: E): string {
  const row = v.closest(el, 'div, li, td, p') ?? el;
  return textIn(v, row).toLowerCase();
}

/** Why a shown price text did not parse: another marketplace's currency, else unreadable. */
function unreadReason(text: string, marketplace: Marketplace): MissingReason {
  const t = clean(text).toLowerCase();
  const own = MONEY[marketplace.code].tokens;
  const other = Object.values(MONEY).some((m) => m.tokens.some((tok) => !own.includes(tok) && tok.length > 1 && t.includes(tok)));
  return other || /\b[a-z]{3}\s?\d/.test(t) && !own.some((tok) => t.startsWith(tok)) ? 'other_currency' : 'unreadable';
}

/**
 * Price elements of layouts before `.a-price` (2014–2018), most specific first: the 2017–2018
 * `.sx-price` (read from the screen-reader copy beside it), the 2015–2016 `.s-price`, the 2014 price
 * table's "Price" / "Buy" column (`td.toeOurPrice`, `td.toeOurPriceWithRent`; its Rent, New and Used columns are not the price).
 */
const LEGACY_PRICES = '.sx-price, .s-price, td.toeOurPrice, td.toeOurPriceWithRent';

/**
 * Where the main offer's prices sit: the card's first price block (`data-cy="price-recipe"`, 2021+
 * layouts) when it has one — later format rows of a multi-format card and other-offer blocks sit
 * outside it — else the whole card.
 */
export function priceScope<E>(v: View<E>, card: E): E {
  return v.one(card, '[data-cy="price-recipe"]') ?? card;
}

/** A divider that opens a later format row of a multi-format card ("Kindle", "Audible Audiobook"). */
const FORMAT_DIVIDER = 'hr.a-divider-normal';

/**
 * The elements matching `selector` in the main offer's part of the card (`priceScope`), in card order,
 * up to the first format divider: what follows it is another format's offer.
 */
export function inMainOffer<E>(v: View<E>, card: E, selector: string, root: E = priceScope(v, card)): E[] {
  const out: E[] = [];
  for (const el of v.all(root, `${FORMAT_DIVIDER}, ${selector}`)) {
    if (v.is(el, FORMAT_DIVIDER)) break;
    out.push(el);
  }
  return out;
}

/**
 * A `textIn` skip test that leaves out other-offer blocks and everything from the first format divider
 * on (`textIn` asks in card order, so once the divider is seen every later element is skipped).
 */
export function mainOfferOnly<E>(v: View<E>): (e: E) => boolean {
  let after = false;
  return (e) => {
    if (!after && v.is(e, FORMAT_DIVIDER)) after = true;
    return after || v.is(e, OTHER_OFFER_BLOCKS);
  };
}

/** The main offer's price elements, in card order (not struck, not unit prices, not other offers). */
function mainPrices<E>(v: View<E>, card: E): E[] {
  const modern = inMainOffer(v, card, '.a-price').filter((el) => !v.is(el, '.a-text-price') && !inOtherOffer(v, el, card));
  if (modern.length) return modern;
  const legacy = v.all(card, LEGACY_PRICES);
  const first = legacy.find((el) => v.is(el, '.sx-price')) ?? legacy.find((el) => v.is(el, '.s-price')) ?? legacy[0];
  return first && aPriceText(v, first) ? [first] : [];
}

/**
 * Parses a shown price in the marketplace's currency (`parsePrice`); a page shown in another interface
 * language writes the decimal point its way ("€2.95" on amazon.de in English): an amount whose last
 * separator is followed by exactly two digits and whose other separators group by three is read with
 * that separator as the decimal point.
 */
export function parseCardMoney(text: string, marketplace: Marketplace): Price | null {
  const direct = parsePrice(text, marketplace);
  if (direct) return direct;
  const m = /\d{1,3}(?:([.,\s\u00a0])\d{3})*([.,])\d{2}(?!\d)/.exec(text);
  if (!m || m[1] === m[2]) return null;
  const decimal = m[2] as '.' | ',';
  if (decimal === MONEY[marketplace.code].decimal) return null;
  const swapped = text.replace(/[\d.,\s\u00a0]+/, (num) => num.replace(/[.,]/g, (c) => (c === decimal ? '\u0001' : '')).replace('\u0001', MONEY[marketplace.code].decimal));
  return parsePrice(swapped, marketplace);
}

/**
 * Reads the card's price: the first `.a-price` of the main offer that is not struck through. A price
 * in a range (`.a-price-range`, or two amounts in the row joined by "-"), a rental price ("Rent"; the
 * buy price beside it is taken), an instalment and a price in another currency are not it.
 */
export function readCardPrice<E>(v: View<E>, card: E, marketplace: Marketplace): CardPrice {
  const prices = mainPrices(v, card);
  if (prices.length === 0) {
    const low = textIn(v, card).toLowerCase();
    const reason: MissingReason = NO_FEATURED_OFFER_PHRASES.some((p) => low.includes(p)) ? 'no_featured_offer' : 'not_on_page';
    return { price: null, shown: false, reason, el: null };
  }
  const chosen = prices[0]!;
  if (isRental(v, chosen)) {
    // A rental is not the price to pay for the item: the buy price of the same row, else none.
    const buy = rentBuyPrice(v, chosen, marketplace);
    return { price: buy, shown: true, reason: buy ? null : 'not_on_page', el: chosen };
  }
  if (v.closest(chosen, '.a-price-range')) return { price: null, shown: true, reason: 'unreadable', el: chosen };
  const text = aPriceText(v, chosen);
  if (INSTALLMENT_PATTERN.test(rowText(v, chosen)) && !/^\s*\S*\s*[\d.,]+\s*$/.test(text)) return { price: null, shown: true, reason: 'unreadable', el: chosen };
  const price = parseCardMoney(text, marketplace);
  if (!price) return { price: null, shown: true, reason: unreadReason(text, marketplace), el: chosen };
  return { price, shown: true, reason: null, el: chosen };
}

/** A rental price ("$34.37 to rent"); its row shows the buy price beside it ("$69.99 to buy"), read by `rentBuyPrice`. */
function isRental<E>(v: View<E>, price: E): boolean {
  const link = v.closest(price, 'a') ?? price;
  const t = textIn(v, link).toLowerCase();
  return RENT_WORDS.some((w) => t.endsWith(` ${w}`));
}

function rentBuyPrice<E>(v: View<E>, price: E, marketplace: Marketplace): Price | null {
  const link = v.closest(price, 'a') ?? price;
  const row = v.parent(link);
  if (!row) return null;
  const m = /(\S*\s?[\d.,]+\d)\s+to buy\b/i.exec(textIn(v, row));
  return m ? parseCardMoney(m[1]!, marketplace) : null;
}

/** The label right before a struck price ("List:", "Typical:"), lower-case without the colon. */
function labelBefore<E>(v: View<E>, el: E): string {
  const parent = v.parent(el);
  if (!parent) return '';
  const parts: string[] = [];
  for (const k of v.kids(parent)) {
    if (k === el) break;
    parts.push(typeof k === 'string' ? k : textIn(v, k));
  }
  let label = clean(parts.join(' '));
  if (!label) {
    const grand = v.parent(parent);
    if (grand) {
      const before: string[] = [];
      for (const k of v.kids(grand)) {
        if (k === parent) break;
        before.push(typeof k === 'string' ? k : textIn(v, k));
      }
      label = clean(before.join(' '));
    }
  }
  return label.toLowerCase().replace(/[:：]\s*$/, '').trim();
}

/**
 * Reads the card's list price: the struck-through `.a-price.a-text-price` of the main offer (labelled
 * "List:", "Typical:", "Was:", "M.R.P:", … or unlabelled), not one labelled as another format's or
 * product's price ("Print List Price", "Novo preço"), not an instalment.
 */
export function readCardListPrice<E>(v: View<E>, card: E, marketplace: Marketplace): CardListPrice {
  const read = (el: E): CardListPrice => {
    const text = v.is(el, '.a-price') ? aPriceText(v, el) : textIn(v, el);
    const price = parseCardMoney(text, marketplace);
    // An empty struck element shows no list price: nothing to report.
    return { price, reason: price || !clean(text) ? null : unreadReason(text, marketplace) };
  };
  if (v.one(card, '.a-price') === null) {
    // Layouts before `.a-price`: the struck price of the price row (2015–2018), the 2014 "List" column.
    const legacy = v.one(card, '.a-text-strike, td.toeListPrice');
    return legacy ? read(legacy) : { price: null, reason: null };
  }
  for (const el of inMainOffer(v, card, '.a-price.a-text-price')) {
    if (inOtherOffer(v, el, card)) continue;
    const label = labelBefore(v, el);
    if (OTHER_PRODUCT_PRICE_LABELS.some((l) => label.endsWith(l))) continue;
    if (INSTALLMENT_PATTERN.test(label)) continue;
    const struck = v.attr(el, 'data-a-strike') === 'true';
    const labelled = LIST_PRICE_LABELS.some((l) => label === l || label.endsWith(` ${l}`));
    if (!struck && !labelled) continue;
    return read(el);
  }
  return { price: null, reason: null };
}

/** Prime badges of a card (icon, or its accessible label). */
const PRIME_ICONS = 'i.a-icon-prime, .a-icon-prime, .s-prime, [aria-label="Amazon Prime"], i.a-icon-prime-jp, .a-icon-prime-in, .a-icon-prime-br';

/**
 * Reads `prime` for the offer whose price was read (`priceEl`; null when the item carries no price ->
 * null): true when the main offer shows the Prime badge or Prime wording ("FREE delivery … with
 * Prime", "Join Prime …", a Prime member price row); else false. In a 2014 Formats table each price
 * cell is followed by its own Prime cell: only the main price cell's counts.
 */
export function readCardPrime<E>(v: View<E>, card: E, priceEl: E | null): boolean | null {
  if (priceEl === null) return null;
  if (v.is(priceEl, 'td')) return primeCellAfter(v, priceEl);
  if (inMainOffer(v, card, PRIME_ICONS, card).some((el) => !inOtherOffer(v, el, card))) return true;
  const t = textIn(v, card, mainOfferOnly(v)).toLowerCase();
  return CARD_PRIME_PHRASES.some((p) => t.includes(p));
}

/** The 2014 Formats table: true when the cell right after the price cell holds the Prime sprite. */
function primeCellAfter<E>(v: View<E>, cell: E): boolean {
  const row = v.parent(cell);
  if (!row) return false;
  const cells = v.kids(row).filter((k): k is E => typeof k !== 'string' && v.tag(k) === 'td');
  const next = cells[cells.indexOf(cell) + 1];
  return next !== undefined && v.one(next, '.sprPrime') !== null;
}
