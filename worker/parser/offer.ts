/**
 * The featured offer's scope: the parts of the buy box and price block that belong to other offers
 * (used, trade-in, other sellers) are never read for the featured one.
 */

/** Containers of offers that are never the featured new offer. */
export const NOT_FEATURED = '[id*="usedAccordionRow"], #usedBuySection, #usedBuyBox, #usedbuyBox, [id*="tradeIn"], #aod-container, #olp_feature_div, #mbc, [id^="buyboxused"]';

/** Hidden copies (popover bodies, hidden triggers) that repeat what the page shows. */
export const HIDDEN_COPY = '.a-popover-preload, .aok-hidden, [data-action="a-popover"] .a-popover-trigger';

/** True when an element belongs to an offer other than the featured one. */
export const otherOffer = (el: Element): boolean => el.closest(NOT_FEATURED) !== null;

/** The first of `els` in the featured offer's scope. */
export function featured(els: readonly Element[]): Element | null {
  return els.find((el) => !otherOffer(el)) ?? null;
}

/** The stock line of older (2008–2014) buy blocks: `span.availGreen` "In Stock." and its orange / red forms. */
export const LEGACY_STOCK = '.availGreen, .availOrange, .availRed';
