import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { resolveMarketplace, type Marketplace } from '../../core/marketplaces.js';
import type { PageParse, ProductFields } from '../../core/product.js';
import { PARSER_VERSION, decodePage, parseProductPage } from '../../worker/parser/index.js';
import { parsePrice } from '../../worker/parser/price.js';
import { parseRating } from '../../worker/parser/rating.js';
import { detailKey } from '../../worker/parser/text.js';
import { unwrapBrand, stripRole } from '../../worker/parser/byline.js';
import { stripScriptsAndStyles } from '../../worker/parser/prepare.js';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/html');
const page = (name: string): string => readFileSync(path.join(dir, name), 'utf8');
const mp = (code: string): Marketplace => resolveMarketplace(code)!;

function fields(parse: PageParse): ProductFields {
  if (parse.kind !== 'product') throw new Error(`expected a product page, got ${parse.kind}`);
  return parse.fields;
}

/** A tiny product page around one fragment (for never-guess cases). */
const wrap = (body: string): string =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><span id="productTitle">T</span>${body}</body></html>`;
const corePrice = (offscreen: string): string =>
  `<div id="corePriceDisplay_desktop_feature_div"><span class="a-price priceToPay"><span class="a-offscreen">${offscreen}</span></span></div>`;

describe('parser version', () => {
  it('is a semver string', () => expect(PARSER_VERSION).toMatch(/^\d+\.\d+\.\d+$/));
});

describe('page kinds', () => {
  it('captcha page -> robot_check', () => {
    expect(parseProductPage(page('captcha.html'), mp('com')).kind).toBe('robot_check');
  });
  it('"continue shopping" interstitial -> robot_check', () => {
    const html = '<html><body><h4>Click the button below to continue shopping</h4><button>Continue shopping</button></body></html>';
    expect(parseProductPage(html, mp('in')).kind).toBe('robot_check');
  });
  it('not-found page -> not_found', () => {
    expect(parseProductPage(page('not-found.html'), mp('com'))).toEqual({ kind: 'not_found' });
  });
  it('503 page -> error_page', () => {
    expect(parseProductPage(page('error-503.html'), mp('com')).kind).toBe('error_page');
  });
  it('page without a title -> degraded', () => {
    const r = parseProductPage(page('degraded-no-title.html'), mp('com'));
    expect(r.kind).toBe('degraded');
    expect(r).toHaveProperty('reason');
  });
  it('product page -> product', () => {
    expect(parseProductPage(page('product-minimal.html'), mp('com')).kind).toBe('product');
  });
});

describe('minimal product page (com)', () => {
  const f = fields(parseProductPage(page('product-minimal.html'), mp('com')));
  it('title: entities decoded, marks dropped, whitespace collapsed', () => expect(f.title).toBe('ACME Widget, Deluxe Edition'));
  it('byline: "Visit the X Store" -> X', () => expect(f.byline).toEqual(['ACME']));
  it('price: price to pay, not unit/list price', () => expect(f.price).toEqual({ amount: 1234.56, currency: 'USD' }));
  it('rating and count from the product summary, not carousels', () => {
    expect(f.rating).toBe(4.5);
    expect(f.ratings_count).toBe(1234);
  });
  it('image: data-old-hires wins over data: src', () =>
    expect(f.image_url).toBe('https://m.media-amazon.com/images/I/71TESTIMG1L._AC_SL1500_.jpg'));
  it('bsr: main line plus every subcategory (last link of a path)', () => {
    expect(f.status).toBe('ok');
    expect(f.bsr).toEqual({
      rank: 16039,
      category: 'Toys & Games',
      subcategories: [
        { rank: 5, category: 'Poker Sets' },
        { rank: 12, category: 'Card Games' },
      ],
    });
  });
  it('details: pairs only, first value wins, no BSR / reviews / empty rows', () =>
    expect(f.details).toEqual({
      product_dimensions: '10 x 5 x 2 inches; 1 Pounds',
      item_model_number: 'ACME-1',
      asin: 'B000TEST01',
    }));
  it('twister: selected value per dimension in page order, children from embedded JSON', () => {
    expect(f.variant).toBe('Red / Large');
    expect(new Set(f.variants.map((v) => `${v.asin}=${v.name}`))).toEqual(
      new Set(['B000TEST01=Red / Large', 'B000TEST02=Blue / Large', 'B000TEST03=Red / Small']),
    );
  });
});

describe('French book page (fr)', () => {
  const f = fields(parseProductPage(page('product-book-fr.html'), mp('fr')));
  it('byline: contributors without roles, folded names included', () =>
    expect(f.byline).toEqual(['Brian W. Kernighan', 'Dennis M. Ritchie', 'Jean-François Groff']));
  it('format swatches: selected format, formats without own ASIN left out', () => {
    expect(f.variant).toBe('Broché');
    expect(f.variants).toEqual([
      { name: 'Format Kindle', asin: 'B00KINDLE1' },
      { name: 'Broché', asin: '2100000001' },
    ]);
  });
  it('price of the selected format in EUR with 1.234,56 notation', () => expect(f.price).toEqual({ amount: 1234.56, currency: 'EUR' }));
  it('rating 4,6 sur 5 and a space-grouped count', () => {
    expect(f.rating).toBe(4.6);
    expect(f.ratings_count).toBe(1234);
  });
  it('legacy #SalesRank with n°/dans and a narrow-space grouped rank', () =>
    expect(f.bsr).toEqual({ rank: 1234, category: 'Livres', subcategories: [{ rank: 7, category: 'Programmation' }] }));
  it('details keys normalised, one pair per bullet, non-pairs dropped', () =>
    expect(f.details).toEqual({
      broché: '304 pages',
      editeur: 'Dunod; Édition : 2e (1 janvier 2014)',
      dimensions_du_produit_l_x_l_x_h: '17 x 2 x 24 cm',
      isbn_10: '2100000001',
    }));
  it('image: widest data-a-dynamic-image entry when no data-old-hires', () =>
    expect(f.image_url).toBe('https://images-na.ssl-images-amazon.com/images/I/41BOOKIMGL._SX400_.jpg'));
});

describe('never guess', () => {
  it('price range -> null', () => {
    expect(fields(parseProductPage(wrap('<span id="priceblock_ourprice">$10.99 - $15.99</span>'), mp('com'))).price).toBeNull();
    expect(parsePrice('$10.99 - $15.99', mp('com'))).toBeNull();
  });
  it('foreign currency -> null', () => {
    expect(fields(parseProductPage(wrap(corePrice('€12.99')), mp('com'))).price).toBeNull();
    expect(parsePrice('$12.99', mp('uk'))).toBeNull();
    expect(parsePrice('R$ 12,99', mp('com'))).toBeNull();
    expect(parsePrice('CDN$ 16.65', mp('com'))).toBeNull();
  });
  it('two different featured prices -> null; used-offer-only buy box -> null', () => {
    expect(fields(parseProductPage(wrap(corePrice('$1.00') + corePrice('$2.00')), mp('com'))).price).toBeNull();
    const used = `<div id="usedAccordionRow">${corePrice('$5.00')}</div>`;
    expect(fields(parseProductPage(wrap(used), mp('com'))).price).toBeNull();
  });
  it('unit price alone is not a price', () => {
    const html = wrap('<div id="corePrice_feature_div"><span class="pricePerUnit"><span class="a-price"><span class="a-offscreen">$2.00</span></span></span></div>');
    expect(fields(parseProductPage(html, mp('com'))).price).toBeNull();
  });
  it('price formats per marketplace', () => {
    expect(parsePrice('1.234,56 €', mp('de'))).toEqual({ amount: 1234.56, currency: 'EUR' });
    expect(parsePrice('￥2,480', mp('jp'))).toEqual({ amount: 2480, currency: 'JPY' });
    expect(parsePrice('￥ 2,814 （税込）', mp('jp'))).toEqual({ amount: 2814, currency: 'JPY' });
    expect(parsePrice('₹1,23,456.00', mp('in'))).toEqual({ amount: 123456, currency: 'INR' });
    expect(parsePrice('R$ 19,90', mp('br'))).toEqual({ amount: 19.9, currency: 'BRL' });
    expect(parsePrice('CDN$ 16.65', mp('ca'))).toEqual({ amount: 16.65, currency: 'CAD' });
    expect(parsePrice('1,99', mp('com'))).toBeNull();
  });
  it('no rating block -> null rating and count; no rank -> no_bsr', () => {
    const f = fields(parseProductPage(wrap(''), mp('com')));
    expect(f.rating).toBeNull();
    expect(f.ratings_count).toBeNull();
    expect(f.bsr).toBeNull();
    expect(f.status).toBe('no_bsr');
    expect(f.byline).toEqual([]);
    expect(f.variants).toEqual([]);
    expect(f.variant).toBeNull();
    expect(f.details).toEqual({});
    expect(f.image_url).toBeNull();
  });
});

describe('helpers', () => {
  it('rating phrases', () => {
    expect(parseRating('4.7 out of 5 stars')).toBe(4.7);
    expect(parseRating('4,6 von 5 Sternen')).toBe(4.6);
    expect(parseRating('5つ星のうち4.4')).toBe(4.4);
    expect(parseRating('3.0 étoiles sur 5')).toBe(3);
    expect(parseRating('4.3 de un máximo de 5 estrellas')).toBe(4.3);
    expect(parseRating('no stars')).toBeNull();
  });
  it('detail keys', () => {
    expect(detailKey('Dimensions du produit (L x l x h)')).toBe('dimensions_du_produit_l_x_l_x_h');
    expect(detailKey('ISBN-10:')).toBe('isbn_10');
    expect(detailKey('Publisher \u200f : \u200e')).toBe('publisher');
    expect(detailKey('登録情報')).toBe('登録情報');
  });
  it('brand wrappers and roles', () => {
    expect(unwrapBrand('Visit the SLOWPLAY Store')).toBe('SLOWPLAY');
    expect(unwrapBrand('Brand: Amazon Basics')).toBe('Amazon Basics');
    expect(unwrapBrand('Besuchen Sie den Bosch-Store')).toBe('Bosch');
    expect(unwrapBrand('Marque : Lintimes')).toBe('Lintimes');
    expect(unwrapBrand('Visita la tienda de Cecotec')).toBe('Cecotec');
    expect(unwrapBrand('Visite a loja da Hi-Spec')).toBe('Hi-Spec');
    expect(stripRole('Brian W. Kernighan (Author)')).toBe('Brian W. Kernighan');
  });
  it('strips script/style bodies without touching markup inside attribute values', () => {
    const html = '<div data-x="<script>">a</div><script>var s = "<div>";</script><style>p{}</style><p>b</p>';
    expect(stripScriptsAndStyles(html)).toBe('<div data-x="<script>">a</div><script></script><p>b</p>');
  });
});

describe('decodePage', () => {
  it('honours the Content-Type charset', () => {
    const bytes = iconv.encode('<html><body>Prix : 12,99 €</body></html>', 'windows-1252');
    expect(decodePage(bytes, 'text/html; charset=windows-1252')).toContain('12,99 €');
  });
  it('honours a meta charset (Shift_JIS)', () => {
    const bytes = iconv.encode('<html><head><meta http-equiv="content-type" content="text/html; charset=Shift_JIS"></head><body>本</body></html>', 'Shift_JIS');
    expect(decodePage(bytes)).toContain('本');
  });
  it('defaults to UTF-8, and reads invalid UTF-8 as windows-1252', () => {
    expect(decodePage(new TextEncoder().encode('<p>é</p>'))).toBe('<p>é</p>');
    const bytes = iconv.encode('<meta charset="utf-8"><p>caf\u00e9 \u00ae</p>', 'windows-1252');
    expect(decodePage(bytes)).toContain('café ®');
  });
});
