/**
 * The fragment pass (worker/parser/fragments.ts): balanced outer HTML of the kept parts, their ancestors,
 * and equivalence with the whole page: every element a reader can reach is the same in the fragment
 * document (same outer HTML but for `style` attributes, same ancestors) as in the whole-page document.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'parse5';
import { describe, expect, it } from 'vitest';
import { resolveMarketplace } from '../../core/marketplaces.js';
import { BSR_PARTS, isBsrLabel } from '../../worker/parser/bsr.js';
import { BYLINE_PARTS } from '../../worker/parser/byline.js';
import { decodePage } from '../../worker/parser/decode.js';
import { DETAILS_PARTS } from '../../worker/parser/details.js';
import { withDom } from '../../worker/parser/dom.js';
import { extractFragments, type Fragments } from '../../worker/parser/fragments.js';
import { READ_DATA_ATTRIBUTES, hasClass, type PageParts } from '../../worker/parser/page-parts.js';
import { isQuirksDoctype } from '../../worker/parser/tag-categories.js';
import { IMAGE_PARTS } from '../../worker/parser/image.js';
import { parseProductPage } from '../../worker/parser/index.js';
import { TITLE_PARTS, readTitle } from '../../worker/parser/page-kind.js';
import { stripScriptsAndStyles, withoutBlockWhitespace } from '../../worker/parser/prepare.js';
import { PRICE_PARTS } from '../../worker/parser/price.js';
import { query, queryAll } from '../../worker/parser/query.js';
import { RATING_PARTS } from '../../worker/parser/rating.js';
import { VARIANT_PARTS } from '../../worker/parser/variants.js';
import { describeNeeding, savedPages } from '../support/prerequisites.js';
import { havePages, readCorpus } from '../../scripts/golden/dev-corpus.js';

const READERS: PageParts[] = [BYLINE_PARTS, PRICE_PARTS, BSR_PARTS, IMAGE_PARTS, RATING_PARTS, VARIANT_PARTS];
const cutAll = (html: string): Fragments => extractFragments(html, READERS, TITLE_PARTS, DETAILS_PARTS);
/** Keeps `#productTitle` (so a document is built) and the given ids. */
const cut = (html: string, ids: string[] = []): Fragments => extractFragments(html, [{ ids }], { ids: ['productTitle'] }, { ids: [] });
const page = (body: string): string => `<!DOCTYPE html><html><head><title>t</title></head><body><span id="productTitle">T</span>${body}</body></html>`;
const partHtml = (html: string, f: Fragments, id: string): string[] =>
  f.parts.filter((p) => p.id === id).map((p) => html.slice(p.start, p.end));

/** Ancestors of an element as `TAG#id.class` from the parent up. */
const ancestors = (e: Element): string => {
  const out: string[] = [];
  for (let a = e.parentElement; a; a = a.parentElement) out.push(`${a.tagName}#${a.id}.${a.className}`);
  return out.join(' < ');
};
/** Outer HTML without what the fragment document leaves out: `style` and unread `data-*` attributes. */
const outer = (e: Element): string =>
  e.outerHTML.replace(/ style="[^"]*"/g, '').replace(/ (data-[^\s=>]+)="[^"]*"/g, (a, name: string) => (READ_DATA_ATTRIBUTES.has(name) ? a : ''));

/** Every element a reader can reach: the kept parts, rank labels and their rows, page ASIN, legacy anchor. */
function reachable(doc: Document): string[] {
  const parts: PageParts[] = [...READERS, TITLE_PARTS, DETAILS_PARTS];
  const sel = [
    ...parts.flatMap((p) => (p.ids ?? []).map((i) => `[id="${i}"]`)),
    ...parts.flatMap((p) => (p.idPrefixes ?? []).map((i) => `[id^="${i}"]`)),
    ...parts.flatMap((p) => (p.classes ?? []).map((c) => `.${c}`)),
    'input#ASIN', 'input[name="ASIN"]', 'input[name="ASIN.0"]', 'link[rel="canonical"]',
  ].join(', ');
  const els = [...doc.querySelectorAll(sel)];
  for (const p of parts) {
    for (const w of p.scoped?.within ?? []) for (const c of p.scoped!.classes) els.push(...doc.querySelectorAll(`[id="${w}"] .${c}`));
  }
  // parts kept empty: their start tag and ancestors
  const shells = [
    ...parts.flatMap((p) => (p.shellIds ?? []).map((i) => `[id="${i}"]`)),
    ...parts.flatMap((p) => (p.shellIdPrefixes ?? []).map((i) => `[id^="${i}"]`)),
  ];
  const empty = shells.length ? [...doc.querySelectorAll(shells.join(', '))].map((e) => `${ancestors(e)}\n${outer(e.cloneNode(false) as Element)}`) : [];
  for (const el of doc.querySelectorAll('th, td.label, b, .a-text-bold')) {
    if (!isBsrLabel(el.textContent ?? '')) continue;
    els.push(el);
    const row = el.tagName === 'TH' || el.tagName === 'TD' ? el.parentElement : el.closest('li, tr, div.content, td');
    if (row) els.push(row);
  }
  const buying = doc.querySelector('#btAsinTitle')?.closest('.buying');
  if (buying) els.push(buying);
  // the legacy details anchor is read only when the page has no details container
  const containers = [...DETAILS_PARTS.ids.map((i) => `[id="${i}"]`), ...DETAILS_PARTS.idPrefixes.map((i) => `[id^="${i}"]`)];
  const anchor = doc.querySelector(containers.join(', ')) ? null : doc.querySelector('a#productDetails, a[name="productDetails"]');
  if (anchor) els.push(anchor);
  return [...els.map((e) => `${ancestors(e)}\n${outer(e)}`), ...empty];
}

/** The reachable elements of the whole page and of its fragment document (null: page not cut). */
function compareWithWholePage(html: string): { whole: string[]; frag: string[] } | null {
  const f = cutAll(html);
  if (!f.hasTitle || !f.exact) return null;
  return {
    // the whole page prepared as the fragment document is (the readers' results are compared with the
    // unprepared page by parser.differential.test.ts)
    whole: withDom(withoutBlockWhitespace(stripScriptsAndStyles(html)), reachable),
    frag: withDom(f.html, reachable),
  };
}

describe('fragment parts: balanced outer HTML', () => {
  it('nesting of the same tag name', () => {
    const html = page('<div id="x"><div>a<div>b</div></div>c</div><div>after</div>');
    expect(partHtml(html, cut(html, ['x']), 'x')).toEqual(['<div id="x"><div>a<div>b</div></div>c</div>']);
  });

  it('void elements need no end tag', () => {
    const html = page('<div id="x"><img src="a.jpg"><br>t<input value="1"><hr/></div><img id="landingImage" src="b.jpg"><p>z</p>');
    const f = cut(html, ['x', 'landingImage']);
    expect(partHtml(html, f, 'x')).toEqual(['<div id="x"><img src="a.jpg"><br>t<input value="1"><hr/></div>']);
    expect(partHtml(html, f, 'landingImage')).toEqual(['<img id="landingImage" src="b.jpg">']);
  });

  it('attribute values holding ">" and "</div>"', () => {
    const html = page(`<div id="x" data-a="1>2" title='a > b' data-b="</div>">in</div><div>out</div>`);
    expect(partHtml(html, cut(html, ['x']), 'x')).toEqual([`<div id="x" data-a="1>2" title='a > b' data-b="</div>">in</div>`]);
  });

  it('comments do not end an element and are dropped from the document', () => {
    const html = page('<div id="x">a<!-- </div> --><span>b</span></div><div>out</div>');
    const f = cut(html, ['x']);
    expect(partHtml(html, f, 'x')).toEqual(['<div id="x">a<!-- </div> --><span>b</span></div>']);
    expect(f.html).not.toContain('<!--');
    withDom(f.html, (doc) => expect(doc.querySelector('#x')!.outerHTML).toBe('<div id="x">a<span>b</span></div>'));
  });

  it('script bodies with tag-like text: no element, no end tag, body emptied', () => {
    const html = page(`<div id="x"><script>var s = "</div><div id='productTitle'>fake</div>";</script><b>real</b></div><p>out</p>`);
    const f = cut(html, ['x']);
    expect(partHtml(html, f, 'x')).toHaveLength(1);
    expect(partHtml(html, f, 'x')[0]).toMatch(/<b>real<\/b><\/div>$/);
    expect(f.parts.filter((p) => p.id === 'productTitle')).toHaveLength(1);
    withDom(f.html, (doc) => {
      expect(doc.querySelector('#x')!.innerHTML).toBe('<script></script><b>real</b>');
      expect(doc.querySelectorAll('#productTitle')).toHaveLength(1);
    });
  });

  it('optional end tags: li, p, table rows and cells, end of file', () => {
    const li = page('<ul><li id="x">one<li>two</ul>');
    expect(partHtml(li, cut(li, ['x']), 'x')).toEqual(['<li id="x">one']);
    const p = page('<p id="x">para<div>block</div>');
    expect(partHtml(p, cut(p, ['x']), 'x')).toEqual(['<p id="x">para']);
    const tr = page('<table><tr id="x"><th>Label<td>value<tr><td>next</table>');
    const f = cut(tr, ['x']);
    expect(partHtml(tr, f, 'x')).toEqual(['<tr id="x"><th>Label<td>value']);
    withDom(f.html, (doc) => {
      const row = doc.querySelector('#x')!;
      expect(row.parentElement!.tagName).toBe('TBODY');
      expect([...row.children].map((c) => c.textContent)).toEqual(['Label', 'value']);
    });
    const eof = page('<div id="x">unterminated <b>bold');
    expect(partHtml(eof, cut(eof, ['x']), 'x')[0]).toMatch(/^<div id="x">unterminated <b>bold/);
  });

  it('style attributes and style elements are left out', () => {
    const html = page('<div id="x" style="color:red" class="c"><style>.a{}</style>t</div>');
    withDom(cut(html, ['x']).html, (doc) => expect(doc.querySelector('#x')!.outerHTML).toBe('<div id="x" class="c">t</div>'));
  });

  it('ancestors keep their start tags (ids, classes, closest) but not their other content', () => {
    const html = page('<div id="outer" class="o"><p>noise</p><section><div id="x">t</div></section><span>more</span></div>');
    withDom(cut(html, ['x']).html, (doc) => {
      const x = doc.querySelector('#x')!;
      expect(x.closest('#outer.o')).not.toBeNull();
      expect(x.parentElement!.tagName).toBe('SECTION');
      expect(doc.querySelector('#outer')!.textContent).toBe('t');
    });
  });

  it('keeps the doctype, so the document mode is the page mode', () => {
    for (const html of [page('<div id="x">a</div>'), '<html><body><span id="productTitle">T</span></body></html>']) {
      const whole = withDom(html, (doc) => doc.compatMode);
      expect(withDom(cut(html).html, (doc) => doc.compatMode)).toBe(whole);
    }
  });

  it('a page without a title element builds no document', () => {
    const f = cutAll('<html><body><h1>Sorry! Something went wrong</h1></body></html>');
    expect(f.hasTitle).toBe(false);
    expect(f.html).toBe('');
  });
});

describe('fragment parts the readers need', () => {
  it('a rank label found by its text keeps its row, entities decoded', () => {
    const html = page(
      '<div id="other"><ul><li><span class="a-text-bold">Clasificaci&oacute;n en los m&aacute;s vendidos de Amazon:</span> n.&ordm; 5 en <a href="/b">Libros</a></li></ul></div>',
    );
    const f = cutAll(html);
    expect(f.parts.map((p) => p.tag)).toContain('li');
    const r = parseProductPage(html, resolveMarketplace('es')!);
    expect(r.kind === 'product' && r.fields.bsr).toEqual({ rank: 5, category: 'Libros', subcategories: [] });
  });

  it('a label cell keeps its whole row (the value is the next cell)', () => {
    const html = page('<table><tr><th class="a-color-secondary">Best Sellers Rank</th><td>#3 in <a href="/x">Tools</a></td></tr></table>');
    const r = parseProductPage(html, resolveMarketplace('com')!);
    expect(r.kind === 'product' && r.fields.bsr).toEqual({ rank: 3, category: 'Tools', subcategories: [] });
  });

  it('a used-offer ancestor still hides the price (ancestor ids kept)', () => {
    const core = '<div id="corePrice_feature_div"><span class="a-price priceToPay"><span class="a-offscreen">$5.00</span></span></div>';
    const used = parseProductPage(page(`<div id="usedAccordionRow"><div class="a-box">${core}</div></div>`), resolveMarketplace('com')!);
    expect(used.kind === 'product' && used.fields.price).toBeNull();
    const fresh = parseProductPage(page(`<div id="newAccordionRow"><div class="a-box">${core}</div></div>`), resolveMarketplace('com')!);
    expect(fresh.kind === 'product' && fresh.fields.price).toEqual({ amount: 5, currency: 'USD' });
  });

  it('legacy details: the anchor and the first sibling holding a .bucket .content', () => {
    const legacy =
      '<a name="productDetails"></a><div class="skip">skipped</div>' +
      '<table><tr><td class="bucket"><h2>Details</h2><div class="content"><ul><li><b>ISBN:</b> 123</li></ul></div></td></tr></table>';
    const html = page(legacy);
    const f = cutAll(html);
    expect(f.parts.map((p) => p.tag)).toEqual(expect.arrayContaining(['a', 'table']));
    expect(f.html).not.toContain('skipped');
    const r = parseProductPage(html, resolveMarketplace('com')!);
    expect(r.kind === 'product' && r.fields.details).toEqual({ isbn: '123' });
    // with a details container on the page, the legacy block is not read and not kept
    const modern = page(`${legacy}<div id="detailBullets_feature_div"><ul><li><b>Publisher:</b> X</li></ul></div>`);
    expect(cutAll(modern).html).not.toContain('bucket');
  });

  it('misnested markup around a kept part: whole page instead', () => {
    const html = page('<b><div id="bylineInfo"><a href="/s">Visit the ACME Store</a></b> more</div>');
    const f = cutAll(html);
    expect(f.exact).toBe(false);
    const r = parseProductPage(html, resolveMarketplace('com')!);
    expect(r.kind).toBe('product');
    expect(r.kind === 'product' && r.fields.title).toBe(withDom(stripScriptsAndStyles(html), (doc) => readTitle(doc)));
  });

  it('misnested markup away from the kept parts is followed', () => {
    const html = page('<div class="ad"><a href="/1"><div>ad</div><a href="/2">x</a></a></div><div id="bylineInfo"><a href="/s">Visit the ACME Store</a></div>');
    expect(cutAll(html).exact).toBe(true);
    const cmp = compareWithWholePage(html)!;
    expect(cmp.frag).toEqual(cmp.whole);
  });
});

describe('fragment document equals the whole page for every reachable element', () => {
  const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/html');
  const synthetic = readdirSync(fixtures).filter((f) => f.endsWith('.html'));
  it.each(synthetic)('synthetic %s', (file) => {
    const cmp = compareWithWholePage(readFileSync(path.join(fixtures, file), 'utf8'));
    if (cmp) expect(cmp.frag).toEqual(cmp.whole);
  });

  /**
   * Held-out pages (pages-more) where the tree model places reachable elements under other
   * ancestors than the whole page's tree does, though every field read from them is the same
   * (parser.differential.test.ts): an unknown `<esi:choose>` element inside `<head>` (the HTML
   * parser then opens the body, so a later `<link rel=canonical>` sits in the body), and the
   * 2013 book layout's description block around a `<noscript>` copy of it. Listed so that the test
   * fails on any other page that diverges, and on these once the model follows them (then take
   * them out of the list).
   */
  const KNOWN_DIVERGENT = new Set(['com_1476745420_2013.html', 'com_1579550088_2013.html', 'com_B07FNW9FGJ.html']);

  describeNeeding([savedPages], 'saved pages', () => {
    const saved = havePages ? readCorpus().map((r) => [r.file, r.path] as const) : [];
    it.each(saved)('saved page %s', (name, file) => {
      const cmp = compareWithWholePage(decodePage(readFileSync(file)));
      if (cmp) {
        expect(cmp.frag.length).toBeGreaterThan(0);
        if (KNOWN_DIVERGENT.has(name)) expect(cmp.frag, 'known divergence now followed: take the page out of KNOWN_DIVERGENT').not.toEqual(cmp.whole);
        else expect(cmp.frag).toEqual(cmp.whole);
      }
    });
  });
});

describe('helpers', () => {
  it('hasClass matches whole class tokens', () => {
    expect(hasClass('a-text-bold x', 'a-text-bold')).toBe(true);
    expect(hasClass('x\ta-text-bold', 'a-text-bold')).toBe(true);
    expect(hasClass('a-text-bolder', 'a-text-bold')).toBe(false);
    expect(hasClass('', 'a')).toBe(false);
  });

  it('isQuirksDoctype agrees with parse5 on the document mode', () => {
    const doctypes = [
      'DOCTYPE html',
      'doctype HTML',
      'DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN"',
      'DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd"',
      'DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"',
      'DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.0 Transitional//EN"',
      'DOCTYPE HTML PUBLIC "-//IETF//DTD HTML//EN"',
      'DOCTYPE svg',
    ];
    for (const d of doctypes) expect(isQuirksDoctype(d), d).toBe(parse(`<!${d}><p>x`).mode === 'quirks');
  });

  it('query / queryAll return what querySelector / querySelectorAll return', () => {
    const html =
      '<!DOCTYPE html><div id="a"><span class="s">1</span></div><p id="b">x</p><div id="a"><i class="s">2</i></div>' +
      '<select id="v"><option selected>o</option></select><div id="pre_1"></div><div id="pre_2"><b id="é">u</b></div>';
    const lists = [
      ['#a'], ['#b', '#a'], ['#a .s', '#b'], ['#zz .s', '#b'], ['#a', '#zz'], ['#v option[selected]', '#a'], ['#é'],
      ['[id="b"]', '#a .s'], ['[id^="pre_"]', '#b'], ['div:not(#zz)'], ['#zz'],
    ];
    withDom(html, (doc) => {
      for (const l of lists) {
        expect(queryAll(doc, l), l.join(', ')).toEqual([...doc.querySelectorAll(l.join(', '))]);
        expect(query(doc, l), l.join(', ')).toBe(doc.querySelector(l.join(', ')));
      }
    });
  });
});
