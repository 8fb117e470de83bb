/**
 * Search results page parser: one marketplace search page -> `SearchPageParse`
 * (search-page-contract.md). Pure, no I/O.
 *
 * Fast path: one tokenizer pass cuts the result-grid parts and the result-count line out of the page
 * (`scan.ts`); each is parsed alone by htmlparser2 and read through `view.ts`. The whole page is read in
 * jsdom only where that pass does not serve: pages without a result card (robot checks, error and
 * no-results pages, pages without a grid: their kind is decided there) and markup the pass does not
 * follow. `parseSearchFromDocument` reads a whole-page document with the same readers (the reference
 * of the differential test).
 */
import { parseDocument } from 'htmlparser2';
import type { Marketplace } from '../../../core/marketplaces.js';
import type { SearchPageParse } from '../../../core/search.js';
import { withDom } from '../dom.js';
import { stripScriptsAndStyles } from '../prepare.js';
import { selectAll } from '../select.js';
import { decideNoCardsKind } from './page-kind.js';
import { readSearchFields, SEARCH_QUALITY_VERSION } from './read.js';
import { RESULT_COUNT } from './result-count.js';
import { SEARCH_PARTS_SELECTOR, scanSearchPage } from './scan.js';
import { hView, jsdomView, type HElement, type HNode } from './view.js';

export { SEARCH_QUALITY_VERSION } from './read.js';

/** Kept parts that are the result-count line rather than a result-grid part. */
const isCountLine = <E>(is: (el: E, s: string) => boolean, el: E): boolean => is(el, RESULT_COUNT);

/**
 * Reads a search page from a jsdom document of the whole page: the result-grid parts (outermost
 * `.s-result-item` / `#result_<n>` elements) and the result-count line, or the page kind when it holds
 * no result card.
 * @param doc a document of the whole page (scripts are not run)
 * @param marketplace the marketplace the page was read from (currency, number formats, domain)
 */
export function parseSearchFromDocument(doc: Document, marketplace: Marketplace): SearchPageParse {
  const all = selectAll(doc, SEARCH_PARTS_SELECTOR);
  const outer = all.filter((el) => !all.some((o) => o !== el && o.contains(el)));
  const countLine = outer.find((el) => isCountLine(jsdomView.is, el)) ?? null;
  const parts = outer.filter((el) => !isCountLine(jsdomView.is, el) && hasAsinAttribute(el.getAttribute('data-asin'), el.getAttribute('name')));
  const fields = readSearchFields(jsdomView, countLine, parts, marketplace);
  if (fields) return { kind: 'search', fields };
  const kind = decideNoCardsKind(doc);
  if (kind.kind === 'no_results') {
    return { kind: 'search', fields: { status: 'no_results', total_results: null, results_text: null, items: [], quality: { version: SEARCH_QUALITY_VERSION, cards_seen: parts.length, cards_read: 0, missing: [] } } };
  }
  return kind;
}

/** The whole page in jsdom (see the module comment). */
function parseWholePage(html: string, marketplace: Marketplace): SearchPageParse {
  return withDom(stripScriptsAndStyles(html), (doc) => parseSearchFromDocument(doc, marketplace));
}

/**
 * The element of a kept part, parsed alone by htmlparser2 (script and style bodies emptied first:
 * nothing is read from them). The part's extent is the HTML tree builder's (`scan.ts`); inside it the
 * markup is the well-formed card markup the differential test compares with jsdom's tree.
 */
function partElement(html: string): HElement | null {
  const doc = parseDocument(stripScriptsAndStyles(html)) as unknown as { children: HNode[] };
  const el = doc.children.find((n): n is HElement => n.type === 'tag') ?? null;
  if (el) el.parent = null;
  return el;
}

/** A result-grid part is read only when it carries a non-empty `data-asin` or (2014 cards) `name`. */
function hasAsinAttribute(dataAsin: string | null, name: string | null): boolean {
  return !!dataAsin?.trim() || !!name?.trim();
}

const ATTR_VALUE = String.raw`\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))`;
const DATA_ASIN = new RegExp(String.raw`\sdata-asin` + ATTR_VALUE, 'i');
const NAME = new RegExp(String.raw`\sname` + ATTR_VALUE, 'i');

/** `hasAsinAttribute` on a kept part's start tag, read from its markup (parts without one are never parsed). */
function mayBeCard(partHtml: string): boolean {
  const end = partHtml.indexOf('>');
  const tag = partHtml.slice(0, end < 0 ? partHtml.length : end);
  const value = (m: RegExpExecArray | null): string | null => (m ? (m[1] ?? m[2] ?? m[3] ?? '') : null);
  return hasAsinAttribute(value(DATA_ASIN.exec(tag)), value(NAME.exec(tag)));
}

/**
 * Parses a search results page.
 * @param html the decoded page (see `decodePage`)
 * @param marketplace the marketplace the page was read from (currency, number formats, domain)
 * @returns `search` with the page's fields (status `ok`, or `no_results` with no items), or why the
 *   page is not an observation (`robot_check`, `error_page`, `degraded`)
 */
export function parseSearchPage(html: string, marketplace: Marketplace): SearchPageParse {
  const scan = scanSearchPage(html);
  if (scan.inexact) return parseWholePage(html, marketplace);
  let countLine: HElement | null = null;
  const parts: HElement[] = [];
  for (const part of scan.parts) {
    const isCard = mayBeCard(part.html);
    if (!isCard && countLine) continue;
    const el = partElement(part.html);
    if (!el) continue;
    if (isCountLine(hView.is, el)) countLine ??= el;
    else if (isCard) parts.push(el);
  }
  const fields = readSearchFields(hView, countLine, parts, marketplace);
  return fields ? { kind: 'search', fields } : parseWholePage(html, marketplace);
}
