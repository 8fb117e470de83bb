/**
 * The featured offer's scope: the parts of the buy box and price block that belong to other offers
 * (used, trade-in, other sellers) are never read for the featured one.
 */

/** Containers of offers that are never the featured new offer. */
export const NOT_FEATURED = '[id*="usedAccordionRow"], #usedBuySection, #usedBuyBox, #usedbuyBox, [id*="tradeIn"], #aod-container, #olp_feature_div, #mbc, [id^="buyboxused"]';

/** Hidden copies (popover bodies, hidden triggers) that repeat what the page shows. */
export const HIDDEN_COPY = '.a-popover-preload, .aok-hidden, [data-action="a-popover"] .a-popover-trigger';

/** `NOT_FEATURED` as a test of one element's id (the ancestor walk below avoids the selector engine). */
const OTHER_OFFER_ID = /usedAccordionRow|tradeIn|^(?:usedBuySection|usedBuyBox|usedbuyBox|aod-container|olp_feature_div|mbc)$|^buyboxused/;
/** Subscribe & Save rows (`#snsAccordionRowMiddle`, `#sns-base-price`, `#sns…`, any id or class naming "subscribe"). */
const SNS_ID = /^sns|subscribe/i;
const SNS_CLASS = /subscribe/i;

/** True when `el` or an ancestor passes `test` (a plain walk: `closest()` with attribute selectors is slow in jsdom). */
function insideAny(el: Element, test: (a: Element) => boolean): boolean {
  for (let a: Element | null = el; a; a = a.parentElement) if (test(a)) return true;
  return false;
}

/** True when an element belongs to an offer other than the featured one (same as `el.closest(NOT_FEATURED)`). */
export const otherOffer = (el: Element): boolean => insideAny(el, (a) => a.id !== '' && OTHER_OFFER_ID.test(a.id));

/** True when an element is inside a Subscribe & Save row. */
export const inSubscribeSave = (el: Element): boolean =>
  insideAny(el, (a) => (a.id !== '' && SNS_ID.test(a.id)) || SNS_CLASS.test(a.getAttribute('class') ?? ''));

/** The first of `els` in the featured offer's scope. */
export function featured(els: readonly Element[]): Element | null {
  return els.find((el) => !otherOffer(el)) ?? null;
}

/** The stock line of older (2008–2014) buy blocks: `span.availGreen` "In Stock." and its orange / red forms. */
export const LEGACY_STOCK = '.availGreen, .availOrange, .availRed';
