/**
 * Differential test of the search parser's fast path: for every saved search page, what
 * `parseSearchPage` returns (cards cut out by the fragment scanner, each parsed alone by htmlparser2)
 * deep-equals what the same readers return on a plain `new JSDOM(html)` document of the whole page,
 * with nothing cut or stripped (`parseSearchFromDocument`).
 */
import { readFileSync } from 'node:fs';
import { JSDOM, VirtualConsole } from 'jsdom';
import { expect, it } from 'vitest';
import type { Marketplace } from '../../core/marketplaces.js';
import type { SearchPageParse } from '../../core/search.js';
import { decodePage } from '../../worker/parser/index.js';
import { parseSearchFromDocument, parseSearchPage } from '../../worker/parser/search/index.js';
import { searchPages } from '../../scripts/golden/search-corpus.js';
import { describeNeeding, savedSearchPages } from '../support/prerequisites.js';

/** The slow reference: the readers on a jsdom document of the whole page. */
function parseWithFullDocument(html: string, marketplace: Marketplace): SearchPageParse {
  const { window } = new JSDOM(html, { virtualConsole: new VirtualConsole() });
  try {
    return parseSearchFromDocument(window.document, marketplace);
  } finally {
    window.close();
  }
}

describeNeeding([savedSearchPages], 'search parser: card trees vs full document', () => {
  it.each(searchPages().map((p) => [p.file, p] as const))('%s: same result as the full jsdom document', (_file, page) => {
    const html = decodePage(readFileSync(page.path));
    const reference = parseWithFullDocument(html, page.marketplace);
    expect(reference.kind).toBe('search');
    expect(parseSearchPage(html, page.marketplace)).toEqual(reference);
  });
});
