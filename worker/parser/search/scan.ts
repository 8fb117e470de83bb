/**
 * The fast path's one pass over a search page: the result cards and the result-count line are cut out
 * of the raw HTML with the product parser's fragment scanner (htmlparser2's tokenizer feeding a model of
 * the HTML tree builder, `../fragment-scanner.ts`), so only those parts are parsed into trees.
 *
 * Kept (outermost only): elements with the class `s-result-item` (cards of every layout since 2015,
 * and the widgets that share the grid), elements whose id starts with `result_` (2014 cards), the
 * result-count line (`#s-result-count`, `.s-breadcrumb`) and the 2019+ info bar's no-results notice
 * (`.s-no-outline` is not needed: the notice sits in `.s-breadcrumb` or the `s-result-info-bar`).
 * Which of the kept cards are items is decided on their trees (`cards.ts`), by the same rules the
 * whole-document path applies.
 */
import { FastTokenizer } from '../fast-tokenizer.js';
import { FragmentScanner } from '../fragment-scanner.js';
import { compilePageParts, type PageParts } from '../page-parts.js';

/** The parts of a search page the readers read (see the module comment). */
export const SEARCH_PARTS = {
  ids: ['s-result-count'],
  idPrefixes: ['result_'],
  classes: ['s-result-item', 's-breadcrumb'],
} as const satisfies PageParts;

/** Selector of the same parts, for the whole-document path (outermost matches only). */
export const SEARCH_PARTS_SELECTOR = '#s-result-count, [id^="result_"], .s-result-item, .s-breadcrumb';

const RULES = compilePageParts([SEARCH_PARTS], {}, {});

/** One kept part: its outer HTML as it stands in the page. */
export interface ScannedPart {
  start: number;
  html: string;
}

/** What the pass found. */
export interface SearchScan {
  parts: ScannedPart[];
  /** Why the tree model cannot follow the page around a kept part (read the whole page then), or null. */
  inexact: string | null;
}

/**
 * Cuts the cards and the result-count line out of a page (see the module comment).
 * @param html the decoded page
 */
export function scanSearchPage(html: string): SearchScan {
  const scanner = new FragmentScanner(html, RULES);
  const tokenizer = new FastTokenizer({ decodeEntities: false }, scanner);
  tokenizer.write(html);
  tokenizer.end();
  const parts = scanner.regions().map((r) => ({ start: r.start, html: html.slice(r.start, r.end) + r.closers }));
  return { parts, inexact: scanner.inexact };
}
