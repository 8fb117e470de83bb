/**
 * The search parser's rules on small hand-written pages (search-page-contract.md): one card per rule,
 * read through `parseSearchPage` (the fast path) and compared with the whole-document path. Hostile
 * input (NUL bytes, lone surrogates, truncated markup, a 10 MB page) never throws.
 */
import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { resolveMarketplace, type Marketplace } from '../../core/marketplaces.js';
import type { SearchItem, SearchPageFields, SearchPageParse } from '../../core/search.js';
import { parseSearchFromDocument, parseSearchPage } from '../../worker/parser/search/index.js';

const mp = (code: string): Marketplace => resolveMarketplace(code)!;
const com = mp('com');

/** A 2020s result page around the given cards, with a result-count line. */
function page(cards: string, count = '<span>1-16 of over 1,000 results for</span><span> </span><span>"x"</span>'): string {
  return `<!doctype html><html><head><title>Amazon.com : x</title></head><body>
<span data-component-type="s-result-info-bar"><h1><div class="s-breadcrumb"><div class="a-section">${count}</div></div></h1></span>
<div class="s-main-slot s-result-list">${cards}</div></body></html>`;
}

/** One 2020s card. */
function card(inner: string, asin = 'B000000001', cls = ''): string {
  return `<div data-asin="${asin}" data-component-type="s-search-result" class="s-result-item s-asin ${cls}">
<h2><a href="/dp/${asin}"><span>Widget ${asin}</span></a></h2>${inner}</div>`;
}

function parse(html: string, marketplace = com): SearchPageParse {
  const fast = parseSearchPage(html, marketplace);
  const { window } = new JSDOM(html, { virtualConsole: new VirtualConsole() });
  try {
    expect(fast).toEqual(parseSearchFromDocument(window.document, marketplace));
  } finally {
    window.close();
  }
  return fast;
}

function fields(html: string, marketplace = com): SearchPageFields {
  const r = parse(html, marketplace);
  if (r.kind !== 'search') throw new Error(`not a search page: ${r.kind} ${r.reason}`);
  return r.fields;
}

const item = (inner: string, marketplace = com, cls = ''): SearchItem => fields(page(card(inner, 'B000000001', cls)), marketplace).items[0]!;
const price = (amount: string, cls = ''): string => `<span class="a-price ${cls}"><span class="a-offscreen">${amount}</span><span aria-hidden="true">${amount}</span></span>`;

describe('search parser: sponsored label', () => {
  it.each([
    ['com', 'Sponsored'], ['de', 'Gesponsert'], ['fr', 'Sponsorisé'], ['it', 'Sponsorizzato'], ['es', 'Patrocinado'], ['br', 'Patrocinado'], ['jp', 'スポンサー'],
  ])('%s: "%s" marks the card sponsored; the position numbering skips it', (code, word) => {
    const html = page(card(`<span class="puis-sponsored-label-text">${word}</span>`, 'B000000001') + card('', 'B000000002'));
    const f = fields(html, mp(code));
    expect(f.items.map((i) => [i.position, i.organic_position, i.sponsored])).toEqual([[1, null, true], [2, 1, false]]);
  });

  it('an AdHolder card is sponsored whatever its label says', () => {
    expect(item('<span class="s-label-popover-default">Featured from Amazon brands</span>', com, 'AdHolder').sponsored).toBe(true);
  });

  it('a label without the sponsored word is not sponsored', () => {
    expect(item('<span class="s-label-popover-default">Featured from Amazon brands</span>').sponsored).toBe(false);
  });
});

describe('search parser: counts', () => {
  it.each([
    ['(12K)', 12000], ['(13.2K)', 13200], ['1,234', 1234], ['(1.234)', 1234], ['87', 87],
  ])('ratings count %s -> %d', (shown, n) => {
    const i = item(`<div data-cy="reviews-block"><span aria-label="4.5 out of 5 stars"><i class="a-icon a-icon-star-small"><span class="a-icon-alt">4.5 out of 5 stars</span></i></span>
      <a href="/dp/B000000001#customerReviews"><span class="a-size-base s-underline-text">${shown}</span></a></div>`);
    expect([i.rating, i.ratings_count]).toEqual([4.5, n]);
  });

  it.each([
    ['com', '1K+ bought in past month', 1000], ['com', '50+ bought in past month', 50],
    ['de', '100+ Mal im letzten Monat gekauft', 100], ['fr', '100+ achetés au cours du mois dernier', 100],
    ['es', '200+ comprados el mes pasado', 200], ['jp', '過去1か月で1000点以上購入されました', 1000],
  ])('%s: "%s" -> %d', (code, shown, n) => {
    expect(item(`<div class="a-row a-size-base"><span class="a-size-base a-color-secondary">${shown}</span></div>`, mp(code)).bought_past_month).toBe(n);
  });

  it.each([
    ['1-48 of over 10,000 results for', 10000], ['1-16 of 243 results for', 243], ['Mehr als 50.000 Ergebnisse für', 50000],
    ['検索結果 20,000以上 のうち 1-48件', 20000], ['one result for', 1], ['1 result for', 1],
  ])('result-count line "%s" -> %d', (line, n) => {
    const f = fields(page(card(''), `<span>${line}</span><span> </span><span>"x"</span>`));
    expect(f.total_results).toBe(n);
    expect(f.results_text).toBe(`${line} "x"`);
  });
});

describe('search parser: price', () => {
  it('the first a-price of the main offer, and the struck list price beside it', () => {
    const i = item(`<div data-cy="price-recipe">${price('$19.99')} <div class="a-section aok-inline-block"><span>List: </span><span class="a-price a-text-price" data-a-strike="true"><span class="a-offscreen">$24.99</span></span></div></div>`);
    expect([i.price, i.list_price, i.prime]).toEqual([{ amount: 19.99, currency: 'USD' }, { amount: 24.99, currency: 'USD' }, false]);
  });

  it('a price range is not a price', () => {
    const i = item(`<div data-cy="price-recipe"><span class="a-price-range">${price('$10.99')} - ${price('$20.99')}</span></div>`);
    expect(i.price).toBeNull();
  });

  it('"$12.99 (3 used & new offers)" in the other-offers row is not a price; prime is then null', () => {
    const i = item(`<div data-cy="secondary-offer-recipe"><div class="a-row">${price('$12.99')} <a>(3 used &amp; new offers)</a></div></div>`);
    expect([i.price, i.prime]).toEqual([null, null]);
  });

  it('a unit price is not the price nor the list price', () => {
    const i = item(`<div data-cy="price-recipe">${price('$8.99')}<span class="a-size-base a-color-secondary">(<span class="a-price a-text-price" data-a-size="b"><span class="a-offscreen">$0.45</span></span>/Count)</span></div>`);
    expect([i.price, i.list_price]).toEqual([{ amount: 8.99, currency: 'USD' }, null]);
  });

  it('a price in another currency is null, and so is prime (null exactly when price is)', () => {
    const i = item(`<div data-cy="price-recipe">${price('TWD 1,234')}</div>`, mp('jp'));
    expect([i.price, i.prime]).toEqual([null, null]);
  });

  it('a later format row (after the format divider) feeds no price, list price or Prime', () => {
    const later = `<hr class="a-divider-normal"><a>Kindle</a>${price('$9.99')}${price('$15.00', 'a-text-price" data-a-strike="true')}<i class="a-icon a-icon-prime" aria-label="Amazon Prime"></i>`;
    const i = item(`<div class="a-row">${price('$20.00')}</div>${later}`);
    expect([i.price, i.list_price, i.prime]).toEqual([{ amount: 20, currency: 'USD' }, null, false]);
  });

  it('a first format block without a price ("No featured offers available") leaves the price null, whatever later formats cost', () => {
    const i = item(`<div data-cy="price-recipe"><a>Paperback</a></div><div data-cy="secondary-offer-recipe">No featured offers available</div><hr class="a-divider-normal"><a>Audible</a>${price('$0.00')}`);
    expect([i.price, i.prime]).toEqual([null, null]);
  });

  it('a Prime badge in the main offer makes prime true', () => {
    expect(item(`<div data-cy="price-recipe">${price('$5.00')}</div><i class="a-icon a-icon-prime" aria-label="Amazon Prime"></i>`).prime).toBe(true);
  });
});

/** A 2015–2018 list card (`li.s-result-item`, no `data-component-type`). */
function oldCard(inner: string, asin = 'B000000001'): string {
  return `<li id="result_0" data-asin="${asin}" class="s-result-item celwidget"><div class="a-row a-spacing-small"><a class="s-access-detail-page"><h2 class="s-access-title">Widget</h2></a>${inner}</div></li>`;
}
const oldItem = (inner: string, after = ''): SearchItem => fields(page(`<ul id="s-results-list-atf">${oldCard(inner).replace('</li>', `${after}</li>`)}</ul>`)).items[0]!;

describe('search parser: layouts before 2021', () => {
  it('a "by <name>" line under the title is the brand; a contributor byline (linked name, or a release date beside the title) is not', () => {
    const by = (name: string): string => `<div class="a-row a-spacing-none"><span class="a-size-small">by</span> <span class="a-size-small">${name}</span></div>`;
    expect(oldItem(by('Apple')).brand).toBe('Apple');
    expect(oldItem(by('<a href="/author">Harper Lee</a>')).brand).toBeNull();
    expect(oldItem(`<span class="a-size-small a-color-secondary">Aug 1, 2008</span>${by('Led Zeppelin')}`).brand).toBeNull();
  });

  it('the delivery line is the first main-offer line that reads as one; stock notes are not', () => {
    const row = (t: string): string => `<div class="a-row a-spacing-none"><span class="a-size-small a-color-secondary">${t}</span></div>`;
    expect(oldItem('', row('Only 2 left in stock - order soon.') + row('Get it by <span class="a-text-bold">Thursday, Feb 4</span>') + row('FREE Shipping on orders over $35')).delivery).toBe('Get it by Thursday, Feb 4');
    expect(oldItem('', `<div class="a-row"><span class="s-price">$29.99</span><span class="a-letter-space"></span><span class="a-size-small">+ $0.55 shipping</span></div>`).delivery).toBe('+ $0.55 shipping');
    expect(oldItem('', row('Only 2 left in stock - order soon.')).delivery).toBeNull();
  });

  it('the old card image: an http src is written https; the no-image placeholder is no image', () => {
    const img = (cls: string, src: string): string => `<img class="${cls}" src="${src}">`;
    expect(oldItem('', img('s-access-image', 'http://ecx.images-amazon.com/images/I/1.jpg')).image_url).toBe('https://ecx.images-amazon.com/images/I/1.jpg');
    expect(oldItem('', img('placeholder', 'http://g-ecx.images-amazon.com/images/G/01/no-img-sm.gif')).image_url).toBeNull();
  });

  it('colour twister thumbnails count as swatches', () => {
    const li = '<li class="s-color-twister-list-item"><img src="x.jpg"></li>';
    expect(oldItem('', `<ul>${li}${li}${li}<li class="s-color-twister-other-color-item">+</li></ul>`).variants_count).toBe(3);
  });

  it('"#1 Best Seller" drawn as a best-seller badge is a badge; "Save 10%" + "with coupon" in the same styling is a coupon', () => {
    const badge = (inner: string): string => `<span class="sx-bestseller"><a><i class="sx-bestseller-badge-primary">${inner}</a></span>`;
    expect(oldItem('', badge('#<span class="rankNumber">1</span> Best Seller</i><span class="sx-bestseller-node">in Lights</span>')).badges).toEqual(['#1 Best Seller']);
    const c = oldItem('', badge('Save 10%</i> with coupon'));
    expect([c.badges, c.coupon]).toEqual([[], 'Save 10% with coupon']);
  });

  it('2014 Formats table: only the Prime cell right after the price cell counts', () => {
    const table = (cells: string): string => `<table><tr><td class="tpType"><a>Hardcover</a><div class="sss">FREE Shipping</div></td>${cells}</tr></table>`;
    const legacy = (cells: string): SearchItem =>
      fields(page(`<div id="atfResults"><div id="result_0" class="result product" name="B000000001"><h3 class="title"><a class="title">Book</a></h3>${table(cells)}</div></div>`)).items[0]!;
    const prime = '<td><span class="srSprite sprPrime"></span></td>';
    expect(legacy(`<td class="toeOurPrice"><a>$81.53</a></td>${prime}`).prime).toBe(true);
    const rent = legacy(`<td class="toeRentPrice"><a>$26.00</a></td>${prime}<td class="toeOurPriceWithRent"><a>$69.65</a></td><td></td>`);
    expect([rent.price, rent.prime, rent.delivery]).toEqual([{ amount: 69.65, currency: 'USD' }, false, 'FREE Shipping']);
  });
});

describe('search parser: 2025+ badges, coupons, variants, ratings', () => {
  it('rio-badge labels and certification pills are badges; the category tail and the hidden side sheet are not', () => {
    const rio = '<span class="rio-badge-label"><span>Best Seller</span></span><span class="rio-badge-supplementary-text rio-hidden">in Jeans</span>';
    const pill = '<a class="s-pc-badge" data-cy="s-pc-faceout-badge"><span>Small Business</span></a><div class="aok-hidden"><span class="s-pc-badge-text">Safer chemicals</span></div>';
    expect(item(rio + pill).badges).toEqual(['Best Seller', 'Small Business']);
  });

  it('the coupon is the shown half of the coupon component, not its hidden clipped twin', () => {
    const c = '<span class="s-coupon-clipped aok-hidden"><span class="s-coupon-highlight-color">You pay $5</span> <span>10% off coupon applied</span></span><span class="s-coupon-unclipped"><span class="s-coupon-highlight-color">You pay $5</span> <span>with coupon</span></span>';
    expect(item(c).coupon).toBe('You pay $5 with coupon');
  });

  it('"Mais 3 cores/estampas" is a swatch tail; an "Options: 3 sizes" row is not', () => {
    const opts = '<span class="s-variation-options-text">Options: <a>3 sizes</a></span>';
    expect(item(`${opts}<div class="s-color-swatch-container"><a><u>Mais 3 cores/estampas</u></a></div>`, mp('br')).variants_count).toBe(3);
    expect(item(opts).variants_count).toBeNull();
  });

  it('the zh_TW interface\'s star phrase is a rating', () => {
    expect(item('<span aria-label="4.3 顆星，最高 5 顆星"></span>').rating).toBe(4.3);
  });
});

describe('search parser: quality.missing', () => {
  const missingOf = (inner: string, marketplace = com): { field: string; reason: string }[] =>
    fields(page(card(inner)), marketplace).quality.missing.map(({ field, reason }) => ({ field, reason }));

  it('a bare card: the always-applicable fields are not on the page; optional fields it does not show are not reported', () => {
    expect(missingOf('')).toEqual(['price', 'rating', 'ratings_count', 'delivery', 'image_url'].map((field) => ({ field, reason: 'not_on_page' })));
  });

  it('shown but not read: unreadable; a foreign price: other_currency; "No featured offers available": no_featured_offer', () => {
    const shown = `<div data-cy="price-recipe">${price('$5.00')}</div><i class="a-icon a-star-small-4-5"><span class="a-icon-alt">stars</span></i><img class="s-image" src="page_files/1.jpg"><div data-cy="delivery-recipe">FREE delivery</div><a href="/dp/x#customerReviews">(many)</a><span>bought in past month</span>`;
    expect(missingOf(shown).map((m) => `${m.field}:${m.reason}`)).toEqual(['rating:unreadable', 'ratings_count:unreadable', 'image_url:unreadable', 'bought_past_month:unreadable']);
    expect(missingOf(`<div data-cy="price-recipe">${price('TWD 1,234')}</div>`, mp('jp'))[0]).toEqual({ field: 'price', reason: 'other_currency' });
    expect(missingOf('<div data-cy="secondary-offer-recipe">No featured offers available</div>')[0]).toEqual({ field: 'price', reason: 'no_featured_offer' });
  });
});

describe('search parser: page kinds', () => {
  it('a robot check is not an observation', () => {
    const r = parse('<html><body><form action="/errors/validateCaptcha"><p>Enter the characters you see below</p></form></body></html>');
    expect(r.kind).toBe('robot_check');
  });

  it('"Something went wrong" is an error page', () => {
    expect(parse('<html><body><h1>Sorry! Something went wrong!</h1></body></html>').kind).toBe('error_page');
  });

  it('a page without a result grid is degraded', () => {
    expect(parse('<html><body><p>Hello</p></body></html>').kind).toBe('degraded');
  });

  it('"No results for" is an answer: status no_results, no items', () => {
    const f = fields(page('', '<span>No results for </span><span>"qwxz"</span>'));
    expect([f.status, f.items]).toEqual(['no_results', []]);
  });

  it('a "did you mean" block alone beside "No results for" is not a result', () => {
    const html = page(card(''), '<span>No results for </span><span>"qwxz"</span>').replace('<div class="s-main-slot', '<div class="a-section">Did you mean: <a>quiz</a></div><div class="s-main-slot');
    const f = fields(html);
    expect([f.status, f.items]).toEqual(['no_results', []]);
  });

  it('placeholder cards with an empty data-asin and widgets are not items', () => {
    const html = page(card('', 'B000000001') + '<div data-asin="" class="s-result-item"><h2>Related searches</h2></div>' +
      '<div data-asin="B000000003" data-component-type="s-impression-logger" class="s-result-item"><h2>Highly rated</h2></div>');
    expect(fields(html).items.map((i) => i.asin)).toEqual(['B000000001']);
  });
});

describe('search parser: hostile input never throws', () => {
  const inputs: [string, string][] = [
    ['NUL bytes', page(card('\u0000<span class="a-price">\u0000$1</span>')).replace(/ /g, ' \u0000')],
    ['lone surrogates', page(card('\ud800<span>\udfff</span>'))],
    ['truncated HTML', page(card(`<div data-cy="price-recipe">${price('$1.00')}</div>`)).slice(0, 400)],
    ['an unclosed attribute', `${page(card(''))}<div class="s-result-item" data-asin="B0000000099`],
    ['empty', ''],
  ];
  it.each(inputs)('%s', (_name, html) => {
    expect(() => parseSearchPage(html, com)).not.toThrow();
  });

  it('a 10 MB page', () => {
    const big = page(Array.from({ length: 2_000 }, (_, i) => card(`<div>${'x'.repeat(5_000)}</div>`, `B${String(i).padStart(9, '0')}`)).join(''));
    expect(big.length).toBeGreaterThan(10_000_000);
    const r = parseSearchPage(big, com);
    expect(r.kind === 'search' && r.fields.items.length).toBe(2_000);
  });
});
