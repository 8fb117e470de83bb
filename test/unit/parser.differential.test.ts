/**
 * Differential test of the fragment pass: for every saved page (../shared/fixtures/pages, read as the
 * golden test reads them), what `parseProductPage` returns (fields read from the page's fragment
 * document, or the whole page where the fragment pass does not serve) deep-equals what the same readers
 * return on a plain `new JSDOM(html)` document of the whole page, with nothing cut or stripped.
 */
import { readdirSync } from 'node:fs';
import { JSDOM, VirtualConsole } from 'jsdom';
import { expect, it } from 'vitest';
import type { PageParse } from '../../core/product.js';
import { parseProductFromDocument, parseProductPage } from '../../worker/parser/index.js';
import { describeNeeding, savedPages } from '../support/prerequisites.js';
import { havePages, loadPage, pagesDir, readManifest } from './parser.golden.compare.js';

/** The slow reference: the readers on a jsdom document of the whole page. */
function parseWithFullDocument(html: string, marketplace: Parameters<typeof parseProductPage>[1]): PageParse {
  const { window } = new JSDOM(html, { virtualConsole: new VirtualConsole() });
  try {
    return parseProductFromDocument(window.document, { html, marketplace });
  } finally {
    window.close();
  }
}

describeNeeding([savedPages], 'parser: fragment document vs full document', () => {
  const rows = havePages ? readManifest() : [];

  it('covers every saved page', () => {
    const files = readdirSync(pagesDir).filter((f) => f.endsWith('.html')).sort();
    expect(rows.map((r) => r.file).sort()).toEqual(files);
  });

  it.each(rows.map((r) => [r.file, r] as const))('%s: same result as the full jsdom document', (_file, row) => {
    const { html } = loadPage(row);
    const reference = parseWithFullDocument(html, row.marketplace);
    expect(parseProductPage(html, row.marketplace)).toEqual(reference);
  });
});
