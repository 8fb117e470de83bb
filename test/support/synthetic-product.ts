/**
 * Small synthetic product pages for the parser's rule tests, and the two reading paths a rule
 * must agree on: the fragment pass (`parseProductPage`) and the readers over a plain jsdom
 * document of the whole page (`parseProductFromDocument`).
 */
import { JSDOM, VirtualConsole } from 'jsdom';
import { expect } from 'vitest';
import { resolveMarketplace, type Marketplace } from '../../core/marketplaces.js';
import type { ProductFields } from '../../core/product.js';
import { parseProductFromDocument, parseProductPage } from '../../worker/parser/index.js';

/** The marketplace of a contract code (`com`, `de`, …); throws on an unknown one. */
export const mp = (code: string): Marketplace => resolveMarketplace(code)!;

/** A whole page around `body`, with a product title unless `title` replaces it. */
export const syntheticPage = (body: string, title = '<span id="productTitle">T</span>'): string =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>${title}${body}</body></html>`;

/** The page's fields read by the fragment pass. @throws when the page is not read as a product. */
export function readFragments(html: string, code = 'com'): ProductFields {
  const r = parseProductPage(html, mp(code));
  if (r.kind !== 'product') throw new Error(`expected a product page, got ${r.kind}`);
  return r.fields;
}

/** The same readers on a plain jsdom document of the whole page. @throws when not a product. */
export function readWhole(html: string, code = 'com'): ProductFields {
  const { window } = new JSDOM(html, { virtualConsole: new VirtualConsole() });
  try {
    const r = parseProductFromDocument(window.document, { html, marketplace: mp(code) });
    if (r.kind !== 'product') throw new Error(`expected a product page, got ${r.kind}`);
    return r.fields;
  } finally {
    window.close();
  }
}

/** The page's fields, after checking that both reading paths agree on them. */
export function readBoth(html: string, code = 'com'): ProductFields {
  const f = readFragments(html, code);
  expect(readWhole(html, code)).toEqual(f);
  return f;
}
