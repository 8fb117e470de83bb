/**
 * General rules for layouts met on real pages outside the saved set, each checked on small synthetic
 * HTML built here (never copied pages): an English-language co.jp rank label, the informal German store
 * wrapper, music format swatches, a 2014 multi-format film page, a book's buy-box price, a buy box
 * that holds only a used offer, the rank labelled "Amazon Bestseller" in a details table, and a buy-box
 * section known as the used offer only by its header. Every page goes through `parseProductPage` (the fragment document) and
 * through the whole-page path, which must agree.
 */
import { describe, expect, it } from 'vitest';
import { resolveMarketplace, type Marketplace } from '../../core/marketplaces.js';
import type { ProductFields } from '../../core/product.js';
import { withDom } from '../../worker/parser/dom.js';
import { parseProductFromDocument, parseProductPage } from '../../worker/parser/index.js';
import { stripScriptsAndStyles } from '../../worker/parser/prepare.js';

const mp = (code: string): Marketplace => resolveMarketplace(code)!;

/** A page around a body (a product title first unless the body brings its own). */
const page = (body: string, title = '<span id="productTitle">T</span>'): string =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>${title}${body}</body></html>`;

/** Parses through the fragment document and the whole page; both must give the same product. */
function read(html: string, marketplace: Marketplace): ProductFields {
  const viaFragments = parseProductPage(html, marketplace);
  const whole = withDom(stripScriptsAndStyles(html), (doc) => parseProductFromDocument(doc, { html, marketplace }));
  expect(viaFragments).toEqual(whole);
  if (viaFragments.kind !== 'product') throw new Error(`expected a product page, got ${viaFragments.kind}`);
  return viaFragments.fields;
}

describe('rank line labelled "Amazon Bestseller:" (English-language amazon.co.jp)', () => {
  const html = page(`
    <div id="detailBullets_feature_div"><ul>
      <li><span class="a-list-item"><span class="a-text-bold">Publisher :</span> <span>Nintendo</span></span></li>
    </ul></div>
    <ul class="a-unordered-list detail-bullet-list"><li><span class="a-list-item">
      <span class="a-text-bold">Amazon Bestseller:</span> #4 in Video Games (<a href="/gp/bestsellers/videogames">See Top 100 in Video Games</a>)
      <ul class="zg_hrsr"><li><span class="a-list-item">#1 in <a href="/gp/bestsellers/videogames/4731379051">Nintendo Switch Games</a></span></li></ul>
    </span></li></ul>`);
  const f = read(html, mp('jp'));
  it('is the Best Sellers Rank: status ok, rank and category read', () => {
    expect(f.status).toBe('ok');
    expect(f.bsr).toEqual({ rank: 4, category: 'Video Games', subcategories: [{ rank: 1, category: 'Nintendo Switch Games' }] });
  });
  it('does not land in details', () => expect(f.details).toEqual({ publisher: 'Nintendo' }));
});

describe('German informal store wrapper', () => {
  it('"Besuche den X-Store" -> X', () => {
    const f = read(page('<a id="bylineInfo" href="/stores/Ravensburger/page/1">Besuche den Ravensburger-Store</a>'), mp('de'));
    expect(f.byline).toEqual(['Ravensburger']);
  });
  it('"Besuche den X Store" -> X', () => {
    const f = read(page('<a id="bylineInfo" href="/stores/LEGO/page/2">Besuche den LEGO Store</a>'), mp('de'));
    expect(f.byline).toEqual(['LEGO']);
  });
});

describe('music format swatches', () => {
  // The MP3 swatch starts with an icon span; the vinyl swatch's link carries no ASIN (the swatch does).
  const html = page(`
    <div id="tmmSwatches"><ul>
      <li class="swatchElement unselected"><span class="a-button"><span class="a-button-inner">
        <a href="/Album-Artist/dp/B0MP3ALBUM/ref=tmm_msc_swatch_0" class="a-button-text"><span class="a-icon a-icon-music"></span><span>MP3 Music</span><br><span class="a-color-secondary">$9.49</span></a>
      </span></span></li>
      <li class="swatchElement selected"><span class="a-button a-button-selected"><span class="a-button-inner">
        <a href="javascript:void(0)" class="a-button-text"><span>Audio CD</span><br><span class="a-color-base"><span class="a-color-price">$13.98</span></span></a>
      </span></span></li>
      <li class="swatchElement unselected" data-defaultasin="B0VINYL001"><span class="a-button"><span class="a-button-inner">
        <a href="javascript:void(0)" class="a-button-text"><span>Vinyl</span><br><span class="a-color-secondary">$24.99</span></a>
      </span></span></li>
    </ul></div>
    <input type="hidden" id="ASIN" name="ASIN" value="B0AUDIOCD1">`);
  const f = read(html, mp('uk'));
  it('the selected format is the variant', () => expect(f.variant).toBe('Audio CD'));
  it('each format with the name and ASIN the page shows', () => {
    expect(f.variants).toEqual([
      { name: 'MP3 Music', asin: 'B0MP3ALBUM' },
      { name: 'Audio CD', asin: 'B0AUDIOCD1' },
      { name: 'Vinyl', asin: 'B0VINYL001' },
    ]);
  });
  it('a swatch whose unpriced "Streaming" button stands beside the priced MP3 one is the MP3 format', () => {
    const swatch = page(`
      <div id="tmmSwatches"><ul>
        <li class="swatchElement unselected"><span class="a-button"><span class="a-button-inner">
          <a href="/dp/B0MP3ALBUM" class="a-button-text"><span>Streaming</span><br><span class="a-color-secondary">Unlimited</span></a>
        </span></span><span class="a-button"><span class="a-button-inner">
          <a href="/dp/B0MP3ALBUM" class="a-button-text"><span>MP3</span><br><span class="a-color-secondary">$9.49</span></a>
        </span></span></li>
        <li class="swatchElement selected"><span class="a-button a-button-selected"><span class="a-button-inner">
          <a href="javascript:void(0)" class="a-button-text"><span>Audio CD</span><br><span class="a-color-price">$13.98</span></a>
        </span></span></li>
      </ul></div>
      <input type="hidden" id="ASIN" name="ASIN" value="B0AUDIOCD1">`);
    expect(read(swatch, mp('com')).variants).toEqual([{ name: 'MP3', asin: 'B0MP3ALBUM' }, { name: 'Audio CD', asin: 'B0AUDIOCD1' }]);
  });
});

describe('2014 multi-format film page (DVD / Blu-ray)', () => {
  const html = page(
    `<table><tr><td>
      <div class="buying" id="priceBlock"><table class="product">
        <tr><td class="priceBlockLabel">List Price:</td><td><span id="listPriceValue" class="listprice">$44.99</span></td></tr>
        <tr id="actualPriceRow"><td>Price:</td><td id="actualPriceContent"><span id="actualPriceValue"><b class="priceLarge">$26.92</b></span></td></tr>
      </table></div>
      <div class="buying"><span class="availGreen">In Stock.</span><br> Ships from and sold by <b>Amazon.com</b>. Gift-wrap available.</div>
      <div class="buying" id="buyboxusedDivId"><table class="buyBox" id="buyboxusedTable"><tr><td>
        <b class="small">Buy Used</b><div id="usedItemExpandBuyingInfoDiv"><b class="priceLarge">$24.74</b></div>
      </td></tr></table></div>
    </td></tr></table>
    <table class="twisterMediaMatrix"><tbody><tr><td><table>
      <tbody id="video_download_meta_binding_0_winner"><tr id="tmm_B0INSTANT1"><td class="tmm_bookTitle"><a href="http://www.amazon.com/Film/dp/B0INSTANT1">Film (Plus Bonus Features)</a></td></tr></tbody>
    </table><table>
      <tbody id="multi_format_meta_binding_winner"><tr class="activeRow bucketBorderTop" id="tmm_B0MULTIFMT"><td class="tmm_videoMetaBinding tmm_bookTitle">Multi-Format</td><td class="tmm_bookTitle">2-Disc Version</td><td class="amazonPriceForVideo">$26.92</td></tr></tbody>
      <tbody id="blu_ray_meta_binding_winner"><tr id="tmm_B0BLURAY01"><td class="tmm_videoMetaBinding tmm_bookTitle">Blu-ray</td><td class="tmm_bookTitle"><a href="http://www.amazon.com/Film-Blu-ray/dp/B0BLURAY01">3-Disc Version</a></td><td class="amazonPriceForVideo">$48.67</td></tr></tbody>
      <tbody id="dvd_meta_binding_winner"><tr id="tmm_B0DVD00001"><td class="tmm_videoMetaBinding tmm_bookTitle">DVD</td><td class="tmm_bookTitle"><a href="http://www.amazon.com/Film/dp/B0DVD00001">1-Disc Version</a></td><td class="amazonPriceForVideo">$14.99</td></tr></tbody>
    </table></td></tr></tbody></table>
    <input type="hidden" name="ASIN" value="B0MULTIFMT">`,
    `<form id="handleBuy"><div class="bucket"><div class="content">
      <h1 class="parseasinTitle"><span id="btAsinTitle">Film (Two-Disc Blu-ray / DVD) (2013)</span></h1>
      <div class="subTitle"><a href="/s?field-keywords=Kristen%20Bell">Kristen Bell</a> <span class="byLinePipe">(Actor)</span>,
        <a href="/s?field-keywords=Chris%20Buck">Chris Buck</a> <span class="byLinePipe">(Director)</span> | <span class="byLinePipe">Format:</span> Blu-ray</div>
    </div></div>
    <span class="crAvgStars"><span class="asinReviewsSummary"><a href="http://www.amazon.com/Film/product-reviews/B0MULTIFMT"><span class="swSprite s_star_4_5" title="4.6 out of 5 stars"><span>4.6 out of 5 stars</span></span></a>
      (<a href="http://www.amazon.com/Film/product-reviews/B0MULTIFMT">6,468 customer reviews</a>)</span></span></form>`,
  );
  const f = read(html, mp('com'));
  it('byline: the actors and directors under the title, without roles', () => expect(f.byline).toEqual(['Kristen Bell', 'Chris Buck']));
  it('variants: the formats of the media matrix, the active one selected', () => {
    expect(f.variant).toBe('Multi-Format');
    expect(f.variants).toEqual([
      { name: 'Multi-Format', asin: 'B0MULTIFMT' },
      { name: 'Blu-ray', asin: 'B0BLURAY01' },
      { name: 'DVD', asin: 'B0DVD00001' },
    ]);
  });
  it('price: the new offer (the used box beside it is another offer)', () => expect(f.price).toEqual({ amount: 26.92, currency: 'USD' }));
  it('rating and ratings count from the summary under the title', () => {
    expect(f.rating).toBe(4.6);
    expect(f.ratings_count).toBe(6468);
  });
  it('v2: list price, stock line and merchant of that era', () => {
    expect(f.list_price).toEqual({ amount: 44.99, currency: 'USD' });
    expect(f.availability).toEqual({ status: 'in_stock', text: 'In Stock.', quantity: null });
    expect(f.buy_box).toEqual({ seller_name: 'Amazon.com', seller_id: null, ships_from: 'Amazon.com', sold_by_amazon: true, fulfilled_by_amazon: true });
  });
});

describe("a book's buy-box price", () => {
  it('the price in the books header of the buy box', () => {
    const html = page(`
      <div id="buybox"><div id="newOfferAccordionRow"><div id="booksHeaderSection"><span id="price" class="a-size-medium a-color-price header-price">$15.99</span></div></div></div>`);
    expect(read(html, mp('com')).price).toEqual({ amount: 15.99, currency: 'USD' });
  });
  it('the selected format price of grid swatches', () => {
    const html = page(`
      <div id="tmmSwatches"><div class="swatchElement selected"><span class="a-button a-button-selected"><span class="a-button-inner">
        <a href="javascript:void(0)" class="a-button-text"><span class="slot-title"><span>Paperback</span></span><span class="slot-price"><span class="a-color-price">$12.49</span></span></a>
      </span></span></div></div>`);
    expect(read(html, mp('com')).price).toEqual({ amount: 12.49, currency: 'USD' });
  });
});

describe('a buy box holding only a used / other-seller offer', () => {
  const html = page(`
    <div id="tmmSwatches"><ul><li class="swatchElement selected"><span class="a-button a-button-selected"><span class="a-button-inner">
      <a href="javascript:void(0)" class="a-button-text"><span>Paperback</span><br><span class="a-color-price">£12.98</span></a>
    </span></span></li></ul></div>
    <div id="buybox"><div id="usedbuyBox" class="rbbContent"><div id="usedBuySection"><span class="a-color-price offer-price">£7.50</span> Used: Very Good | Sold by Round3 UK</div></div>
    <div id="unqualifiedBuyBox">9 used &amp; new from £12.98 <a href="/gp/offer-listing/B0">See All Buying Options</a></div></div>`);
  const f = read(html, mp('uk'));
  it('price is null (never that offer\'s price)', () => expect(f.price).toBeNull());
  it('no featured offer: no merchant, no Prime signal, the quality block says why', () => {
    expect(f.buy_box).toBeNull();
    expect(f.prime).toBeNull();
    expect(f.quality.missing).toContainEqual({ field: 'price', reason: 'no_featured_offer' });
  });
});

describe('price with one-time and Subscribe & Save options', () => {
  it('the one-time price, not the Subscribe & Save one', () => {
    const html = page(`
      <div id="corePrice_feature_div"><div id="snsAccordionRowMiddle"><span class="a-price priceToPay"><span class="a-offscreen">$17.09</span></span></div>
      <span class="a-price priceToPay"><span class="a-offscreen">$17.99</span></span></div>`);
    const f = read(html, mp('com'));
    expect(f.price).toEqual({ amount: 17.99, currency: 'USD' });
  });
  it('a price range in the core block stays null', () => {
    const html = page(`
      <div id="corePrice_desktop"><span class="a-price apexPriceToPay"><span class="a-offscreen">R$169,00</span></span> - <span class="a-price apexPriceToPay"><span class="a-offscreen">R$199,90</span></span></div>`);
    expect(read(html, mp('br')).price).toBeNull();
  });
});

describe('rank row labelled "Amazon Bestseller" in a details table (no colon)', () => {
  const html = page(`
    <table id="productDetails_detailBullets_sections1">
      <tr><th>Publisher</th><td>Nintendo</td></tr>
      <tr><th>Amazon Bestseller</th><td>#4 in Video Games (<a href="/gp/bestsellers/videogames">See Top 100 in Video Games</a>)<br>
        #1 in <a href="/gp/bestsellers/videogames/4731379051">Nintendo Switch Games</a></td></tr>
    </table>`);
  const f = read(html, mp('jp'));
  it('is the Best Sellers Rank', () => {
    expect(f.status).toBe('ok');
    expect(f.bsr).toEqual({ rank: 4, category: 'Video Games', subcategories: [{ rank: 1, category: 'Nintendo Switch Games' }] });
  });
  it('does not land in details', () => expect(f.details).toEqual({ publisher: 'Nintendo' }));
});

describe('a buy-box section known as the used offer only by its "Buy used" header', () => {
  const section = (header: string, price: string): string =>
    `<div class="a-accordion-row-container"><div class="accordion-header"><span>${header}</span></div>
      <div class="a-accordion-inner"><span class="a-color-price offer-price">${price}</span></div></div>`;
  it('its price is not the product price; the new offer\'s is', () => {
    const html = page(`<div id="buybox">${section('Buy used', '$7.50')}${section('Buy new', '$15.99')}</div>`);
    expect(read(html, mp('com')).price).toEqual({ amount: 15.99, currency: 'USD' });
  });
  it('alone, it gives no price (never the used offer\'s)', () => {
    const html = page(`<div id="buybox">${section('Buy used', '$7.50')}</div>`);
    expect(read(html, mp('com')).price).toBeNull();
  });
});
