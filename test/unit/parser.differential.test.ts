/**
 * Differential test of the fragment pass: for every saved page of the development corpus
 * (scripts/golden/dev-corpus.ts, read as the golden test reads them), what `parseProductPage`
 * returns (fields read from the page's fragment document, or the whole page where the fragment pass
 * does not serve) deep-equals what the same readers return on a plain `new JSDOM(html)` document of
 * the whole page, with nothing cut or stripped.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { JSDOM, VirtualConsole } from 'jsdom';
import { expect, it } from 'vitest';
import type { PageParse } from '../../core/product.js';
import { decodePage, parseProductFromDocument, parseProductPage } from '../../worker/parser/index.js';
import { describeNeeding, savedPages } from '../support/prerequisites.js';
import { CORPUS_FOLDERS, havePages, readCorpus } from '../../scripts/golden/dev-corpus.js';

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
  const rows = havePages ? readCorpus() : [];

  it('covers every saved page of every corpus folder', () => {
    const files = CORPUS_FOLDERS.flatMap((f) => (existsSync(f.dir) ? readdirSync(f.dir).filter((n) => n.endsWith('.html')) : [])).sort();
    expect(rows.map((r) => r.file).sort()).toEqual(files);
  });

  it.each(rows.map((r) => [r.file, r] as const))('%s: same result as the full jsdom document', (_file, row) => {
    const html = decodePage(readFileSync(row.path));
    const reference = parseWithFullDocument(html, row.marketplace);
    expect(parseProductPage(html, row.marketplace)).toEqual(reference);
  });
});
