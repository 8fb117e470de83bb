/** `buy_box`: the featured offer's merchant (product-page-contract.md "Version 2 fields", `buy_box`). */
import type { BuyBox } from '../../core/product.js';
import type { PageParts } from './page-parts.js';
import { AMAZON_RETAIL_SELLERS, MERCHANT_SENTENCES, PACKAGING_NOTES, SHIPPER_SELLER_LABELS, SHIPS_FROM_LABELS, SOLD_BY_LABELS, containsAny } from './locale.js';
import { HIDDEN_COPY, LEGACY_STOCK, featured, otherOffer } from './offer.js';
import { queryAll } from './query.js';
import { clean, textOf } from './text.js';
import { closest, matches, selectAll, selectOne } from './select.js';

/** The merchant rows: the tabular buy box, the newer "Ships from" / "Sold by" grid, the legacy merchant line. */
export const BUY_BOX_PARTS: PageParts = {
  ids: ['mobileApplicationLegal_feature_div', 'tabular-buybox', 'merchant-info', 'fulfillerInfoFeature_feature_div', 'merchantInfoFeature_feature_div', 'shipsFromSoldBy_feature_div', 'offer-display-features'],
  classes: ['buying'],
  scoped: { within: ['buybox'], classes: ['print-sold-by'] },
};

const hidden = (el: Element): boolean => matches(el, HIDDEN_COPY);

/** `seller=` of a visible seller link inside `el`. */
function sellerId(el: Element | null): string | null {
  if (!el) return null;
  for (const a of selectAll(el, 'a[href*="seller="]')) {
    if (closest(a, HIDDEN_COPY)) continue;
    const m = /[?&]seller=([A-Z0-9]{8,20})(?:&|$)/.exec(a.getAttribute('href') ?? '');
    if (m) return m[1]!;
  }
  return null;
}

/** The value shown in a grid/tabular value cell (its message span, without hidden copies). */
function cellText(cell: Element): string {
  const msg = [...selectAll(cell, '.offer-display-feature-text-message, .tabular-buybox-text-message')].find((m) => !closest(m, HIDDEN_COPY));
  return msg ? textOf(msg) : textOf(cell, hidden);
}

interface Merchant {
  seller: string | null;
  shipsFrom: string | null;
  id: string | null;
}

/** Reads label/value rows (`.tabular-buybox-label` / `.offer-display-feature-label` and the value after each). */
function readRows(containers: readonly Element[]): Merchant | null {
  const m: Merchant = { seller: null, shipsFrom: null, id: null };
  let any = false;
  for (const box of containers) {
    for (const label of selectAll(box, '.tabular-buybox-label, .offer-display-feature-label')) {
      if (closest(label, HIDDEN_COPY)) continue;
      const value = label.nextElementSibling;
      if (!value || !matches(value, '.tabular-buybox-text, .offer-display-feature-text')) continue;
      const l = textOf(label).toLowerCase();
      const v = cellText(value);
      if (!v) continue;
      if (m.shipsFrom === null && m.seller === null && containsAny(l, SHIPPER_SELLER_LABELS)) {
        // One row for both ("Shipper / Seller", "Ships from and sold by").
        m.shipsFrom = v;
        m.seller = v;
        m.id = sellerId(value);
        any = true;
      } else if (m.shipsFrom === null && containsAny(l, SHIPS_FROM_LABELS)) {
        m.shipsFrom = v;
        any = true;
      } else if (m.seller === null && containsAny(l, SOLD_BY_LABELS)) {
        m.seller = v;
        m.id = sellerId(value);
        any = true;
      }
    }
  }
  return any ? m : null;
}

/**
 * Reads the legacy one-line merchant text (`Ships from and sold by Amazon.com.`, `Sold by X and
 * Fulfilled by Amazon.`): the first sentence of `#merchant-info`, or any sentence of an older `.buying`
 * block (`In Stock. Ships from and sold by Amazon.com.`).
 * @param anySentence whether any sentence of the block may be the merchant line
 */
function readSentence(el: Element, anySentence = false): Merchant | null {
  // A sentence ends at a full stop followed by a space (names such as `Amazon.co.uk` keep theirs) or at `。`.
  const sentences = textOf(el).split(/(?<=\.)\s|(?<=。)/).map((x) => clean(x.replace(/[.。]$/, ''))).filter(Boolean);
  for (const sentence of anySentence ? sentences : sentences.slice(0, 1)) {
    const found = matchSentence(el, sentence);
    if (found) return found;
  }
  return null;
}

/** One sentence against the merchant sentence patterns. */
function matchSentence(el: Element, sentence: string): Merchant | null {
  const lower = sentence.toLowerCase();
  for (const s of MERCHANT_SENTENCES) {
    const note = PACKAGING_NOTES.map((re) => re.exec(lower)).find((x) => x !== null);
    const m = s.re.exec(note ? lower.slice(0, note.index) : lower);
    if (!m) continue;
    const at = (g: number): string => {
      const start = m.index + m[0].indexOf(m[g]!);
      return clean(sentence.slice(start, start + m[g]!.length));
    };
    const link = [...selectAll(el, '#sellerProfileTriggerId, a[href*="seller="]')].find((a) => !closest(a, HIDDEN_COPY));
    const seller = link ? textOf(link) || at(s.seller) : at(s.seller);
    const shipsFrom = s.shipsFrom === 'same' ? seller : at(s.shipsFrom);
    return { seller, shipsFrom, id: sellerId(el) };
  }
  return null;
}

/** The e-book buy box's "Sold by:" row (`tr.print-sold-by`): a seller, no ships-from. */
function readDigitalSeller(doc: Document): Merchant | null {
  const row = featured(queryAll(doc, ['#buybox tr.print-sold-by']));
  const cell = selectOne(row, '.a-color-base');
  const seller = cell ? textOf(cell) : '';
  return seller ? { seller, shipsFrom: null, id: sellerId(row) } : null;
}

/** An app's "Sold by:" line (`#mobileApplicationLegal_feature_div`: a label span and the seller after it): a seller, no ships-from. */
function readAppSeller(doc: Document): Merchant | null {
  for (const box of queryAll(doc, ['#mobileApplicationLegal_feature_div'])) {
    for (const label of selectAll(box, '.masrw-label')) {
      if (!containsAny(textOf(label).toLowerCase(), SOLD_BY_LABELS)) continue;
      const seller = textOf(label.nextElementSibling);
      if (seller) return { seller, shipsFrom: null, id: sellerId(label.parentElement) };
    }
  }
  return null;
}

const isAmazon = (name: string | null): boolean | null => (name === null ? null : AMAZON_RETAIL_SELLERS.includes(name.toLowerCase()));
/** Ships from Amazon: "Amazon", "Amazon.de", or one of the marketplaces' retail entities (they ship their own stock). */
const shipsFromAmazon = (name: string | null): boolean | null => (name === null ? null : /^amazon(?:\.[a-z.]+)?$/i.test(name) || isAmazon(name));

/**
 * Reads the featured offer's merchant: the grid or tabular rows first, else the merchant line; null when
 * the page shows no featured offer's merchant (unavailable pages, a buy box of other offers only).
 */
export function readBuyBox(doc: Document): BuyBox | null {
  const grid = [
    featured(queryAll(doc, ['#tabular-buybox'])),
    featured(queryAll(doc, ['#fulfillerInfoFeature_feature_div'])),
    featured(queryAll(doc, ['#merchantInfoFeature_feature_div'])),
  ].filter((e): e is Element => e !== null);
  // The offer-display grid without its feature wrappers (the two-row "Ships from" / "Sold by" grid).
  if (grid.length === 0) grid.push(...[featured(queryAll(doc, ['#offer-display-features']))].filter((e): e is Element => e !== null));
  let m = grid.length ? readRows(grid) : null;
  if (!m) {
    const line = featured(queryAll(doc, ['#merchant-info']));
    m = line ? readSentence(line) : null;
  }
  m ??= readDigitalSeller(doc) ?? readAppSeller(doc);
  if (!m) {
    // Older layouts: the `.buying` block that holds the stock line also says who sells and ships.
    for (const block of queryAll(doc, ['.buying'])) {
      if (otherOffer(block) || !selectOne(block, LEGACY_STOCK)) continue;
      m = readSentence(block, true);
      if (m) break;
    }
  }
  if (!m) return null;
  return {
    seller_name: m.seller,
    seller_id: m.id,
    ships_from: m.shipsFrom,
    sold_by_amazon: isAmazon(m.seller),
    // Nothing ships from anywhere when no ships-from line is shown (digital offers): not fulfilled by Amazon.
    fulfilled_by_amazon: m.seller !== null && m.shipsFrom === null ? false : shipsFromAmazon(m.shipsFrom),
  };
}
