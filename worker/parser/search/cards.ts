/**
 * Which cards of a search page are items (search-page-contract.md "Which cards are items"), their
 * ASIN and whether they are sponsored. Every rule reads the card element and what it holds, so the
 * fast path (card trees) and the whole-document path decide alike.
 */
import { SPONSORED_WORDS } from './words.js';
import { textIn, type View } from './view.js';

const ASIN = /^[A-Z0-9]{10}$/;

/** The card's ASIN: `data-asin` (2015+), else the 2014 card's `name`; uppercased; null when empty or malformed. */
export function cardAsin<E>(v: View<E>, card: E): string | null {
  const raw = (v.attr(card, 'data-asin') ?? (isLegacyCard(v, card) ? v.attr(card, 'name') : null) ?? '').trim().toUpperCase();
  return ASIN.test(raw) ? raw : null;
}

/** A 2014 card: `div#result_<n>` carrying its ASIN in `name`. */
function isLegacyCard<E>(v: View<E>, card: E): boolean {
  return /^result_\d+$/.test(v.attr(card, 'id') ?? '');
}

/** The card's product name heading: `h2` (2015+, and the 2016–2018 `h2.s-access-title`), 2014 `h3.title` / `h3.newaps`. */
export const TITLE_HEADINGS = 'h2, h3.newaps, h3.title';

/**
 * True when a kept part of the page is an item card: a `s-search-result` card, or (layouts without
 * `data-component-type`) a `.s-result-item` / `#result_<n>` card, with an ASIN and a product name
 * heading. Widgets sharing the grid carry another `data-component-type`, an empty `data-asin`, or no
 * product heading ("Shop by Category" blocks drawn as a result item).
 */
export function isItemCard<E>(v: View<E>, card: E): boolean {
  if (!cardAsin(v, card)) return false;
  const type = v.attr(card, 'data-component-type');
  if (type !== null) return type === 's-search-result';
  if (!v.is(card, '.s-result-item') && !isLegacyCard(v, card)) return false;
  return v.one(card, TITLE_HEADINGS) !== null;
}

/** Elements that hold a sponsored label (its text says so in the page's language). */
const SPONSORED_LABELS = '.puis-sponsored-label-text, .s-sponsored-label-text, .s-label-popover-default, .s-sponsored-list-header, .s-sponsored-header';

/** True when the card carries the sponsored label, or is an `AdHolder` card. */
export function isSponsored<E>(v: View<E>, card: E): boolean {
  if (v.is(card, '.AdHolder')) return true;
  for (const label of v.all(card, SPONSORED_LABELS)) {
    const t = textIn(v, label).toLowerCase();
    if (SPONSORED_WORDS.some((w) => t.includes(w))) return true;
  }
  return false;
}
