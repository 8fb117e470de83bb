/**
 * The readers' selector engine (worker/parser/select.ts, css-select over jsdom nodes) against jsdom's
 * own (`querySelectorAll`, `querySelector`, `matches`, `closest`): the same elements in the same order,
 * for every selector the readers use, on every saved page's fragment document (from the document, from
 * every element with an id, and on every element; robot-check and error pages whole), and on small
 * documents in both modes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BSR_PARTS } from '../../worker/parser/bsr.js';
import { BUY_BOX_PARTS } from '../../worker/parser/buy-box.js';
import { BYLINE_PARTS } from '../../worker/parser/byline.js';
import { CONTENT_PARTS } from '../../worker/parser/content.js';
import { decodePage } from '../../worker/parser/decode.js';
import { DETAILS_PARTS } from '../../worker/parser/details.js';
import { withDom } from '../../worker/parser/dom.js';
import { extractFragments } from '../../worker/parser/fragments.js';
import { HISTOGRAM_PARTS } from '../../worker/parser/histogram.js';
import { IMAGE_PARTS } from '../../worker/parser/image.js';
import { HIDDEN_COPY, LEGACY_STOCK, NOT_FEATURED } from '../../worker/parser/offer.js';
import { OFFER_PRICE_PARTS } from '../../worker/parser/offer-price.js';
import { TITLE_PARTS } from '../../worker/parser/page-kind.js';
import { stripScriptsAndStyles } from '../../worker/parser/prepare.js';
import { PRICE_PARTS } from '../../worker/parser/price.js';
import { RATING_PARTS } from '../../worker/parser/rating.js';
import { closest, matches, selectAll, selectOne } from '../../worker/parser/select.js';
import { STOCK_PARTS } from '../../worker/parser/stock.js';
import { VARIANT_PARTS } from '../../worker/parser/variants.js';
import { describeNeeding, savedPages } from '../support/prerequisites.js';
import { havePages, readCorpus } from '../../scripts/golden/dev-corpus.js';

/** Every selector the readers pass to the engine (literals and the constants they name). */
const SELECTORS = [
  HIDDEN_COPY, LEGACY_STOCK, NOT_FEATURED,
  'th, td.label, b, .a-text-bold, span.a-size-base.a-text-bold', '#replacementPartsFitmentBullet, [id^="replacementPartsFitment"]',
  'b, strong, .a-text-bold', '.pricePerUnit', '.rbbSection, .a-accordion-row-container, .accordion-row', '.rbbHeader, .accordion-header',
  '#acrCustomerReviewText', '#acrPopover, .reviewCountTextLinkedHistogram, [title]', '#sellerProfileTriggerId, a[href*="seller="]',
  '.a-breadcrumb-divider', '.a-button-selected', '.a-button-text', '.a-color-base',
  '.a-color-price, .a-color-secondary, .a-color-base, .a-offscreen', '.a-icon-alt, .a-icon-star, .a-icon-star-mini', '.a-meter',
  '.a-popover-preload', '.a-popover-preload, .contribution', '.a-price', '.a-price, .a-color-price', '.a-price-decimal',
  '.a-price-symbol, .a-price-whole, .a-price-decimal, .a-price-fraction', '.a-price-whole', '.a-text-strike', '.activeRow',
  '.aok-hidden, .olp-prime-badge', '.author', '.bucket .content', '.bucket', '.buying', '.content', '.contribution, .a-popover-preload',
  '.crAvgStars', '.offer-display-feature-text-message, .tabular-buybox-text-message', '.olpLink, .otherSellers', '.prime-signup-ingress',
  '.product-facts-title, h3', '.selected, .a-active', '.slot-title', '.slot-title, .mediaTab_title',
  '.subTitle a[href*="field-author"], .subTitle a[href*="field-keywords"]', '.tabular-buybox-label, .offer-display-feature-label',
  '.tabular-buybox-text, .offer-display-feature-text', '.tmm_videoMetaBinding', ':scope > .a-offscreen', ':scope > [aria-hidden="true"]',
  ':scope > li', '[data-asin], [data-defaultasin]', '[id$="PRIMARY_DELIVERY_MESSAGE_LARGE"]', 'a', 'a.contributorNameID',
  'a[href*="field-author"]', 'a[href*="product-reviews"]', 'a[href*="seller="]', 'a[href]', 'b, .a-text-bold, td.label, th',
  'form[action*="validateCaptcha"], #captchacharacters', 'img', 'img[alt]', 'li a', 'li', 'li, tr, div.content, td', 'noscript', 'span',
  'table.twisterMediaMatrix tr[id^="tmm_"]', '.tmm_bookTitle', 'td', 'td, a, span', 'td.value', 'tr', 'tr, li', 'tr.a-histogram-row, li',
  '#SalesRank', '#tmmSwatches .swatchElement', '#mediaTabs_tabSet li.mediaTab_heading', 'a#productDetails', 'a[name="productDetails"]',
  'input#ASIN', 'input[name="ASIN"]', 'input[name="ASIN.0"]', 'link[rel="canonical"]',
  '.lux-location-label', '.histoCount', '.asinReviewsSummary', '.masrw-label', '.masrw-content-row', 'h1.parseasinTitle', '.a-dropdown-prompt', '.bb_price', '.rbb_section', '.selected',
];
const READERS = [
  BYLINE_PARTS, PRICE_PARTS, BSR_PARTS, IMAGE_PARTS, RATING_PARTS, VARIANT_PARTS,
  OFFER_PRICE_PARTS, BUY_BOX_PARTS, STOCK_PARTS, CONTENT_PARTS, HISTOGRAM_PARTS,
];

/**
 * What the DOM standard answers, from jsdom's engine, which departs from it in two places the
 * comparison works around: `querySelector` can answer other than the first of `querySelectorAll` (its
 * id and name shortcuts, with duplicate ids), so the first of `querySelectorAll` is the answer; and in a
 * quirks-mode document it matches `#id` in exact case only, so `#x` is asked as `[id="x" i]` there.
 */
const standard = (doc: Document, sel: string): string => (doc.compatMode === 'BackCompat' ? sel.replace(/#([\w-]+)/g, '[id="$1" i]') : sel);

/** Differences between the two engines on one document, as readable lines (empty: none). */
function differences(doc: Document): string[] {
  const out: string[] = [];
  const where = (el: Element): string => `<${el.localName}${el.id ? `#${el.id}` : ''}>`;
  const all = [...doc.getElementsByTagName('*')];
  const roots: (Document | Element)[] = [doc, ...all.filter((el) => el.id)];
  for (const sel of SELECTORS) {
    const std = standard(doc, sel);
    for (const root of roots) {
      const name = root === doc ? 'document' : where(root as Element);
      const want = [...root.querySelectorAll(std)];
      const got = selectAll(root, sel);
      if (got.length !== want.length || got.some((el, i) => el !== want[i])) out.push(`selectAll(${name}, ${sel}): ${got.length} vs ${want.length}`);
      if (selectOne(root, sel) !== (want[0] ?? null)) out.push(`selectOne(${name}, ${sel})`);
    }
    for (const el of all) {
      if (matches(el, sel) !== el.matches(std)) out.push(`matches(${where(el)}, ${sel})`);
      if (!sel.includes(':scope') && closest(el, sel) !== el.closest(std)) out.push(`closest(${where(el)}, ${sel})`);
    }
  }
  return out;
}

describe('readers selector engine', () => {
  it('matches as jsdom does in a no-quirks document, :scope included', () => {
    const html = `<!DOCTYPE html><html><body><div id="a" class="x"><span class="a-price"><span class="a-offscreen">$1</span>
      <span aria-hidden="true">1</span></span><ul><li>1<ul><li>2</li></ul></li></ul><b class="A-TEXT-BOLD">B</b></div></body></html>`;
    withDom(html, (doc) => {
      expect(differences(doc)).toEqual([]);
      expect(selectAll(doc, '.a-text-bold')).toEqual([]);
      expect(selectOne(doc.querySelector('.a-price'), ':scope > .a-offscreen')?.textContent).toBe('$1');
    });
  });

  it('matches class names in any case in a quirks-mode document, as jsdom does', () => {
    const html = `<html><body><div class="Buying"><b class="A-Text-Bold">Rank</b><span class="a-price">1</span></div></body></html>`;
    withDom(html, (doc) => {
      expect(doc.compatMode).toBe('BackCompat');
      expect(differences(doc)).toEqual([]);
      expect(selectAll(doc, '.a-text-bold').map((el) => el.textContent)).toEqual(['Rank']);
      expect(closest(selectOne(doc, 'b'), '.buying')?.localName).toBe('div');
    });
  });
});

describeNeeding([savedPages], 'readers selector engine on saved pages', () => {
  const saved = havePages ? readCorpus().map((r) => [r.file, r.path] as const) : [];
  it.each(saved)('same elements as jsdom on the document the readers read of %s', (_file, file) => {
    const html = decodePage(readFileSync(file));
    const frag = extractFragments(html, READERS, TITLE_PARTS, DETAILS_PARTS);
    // product pages are read from their fragment document, the others (robot checks, errors) whole
    expect(withDom(frag.hasTitle ? frag.html : stripScriptsAndStyles(html), differences)).toEqual([]);
  });
});
