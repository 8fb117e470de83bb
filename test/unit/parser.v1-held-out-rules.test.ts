/**
 * Version 1 rules for layouts met on real pages outside the saved set (beside parser.v1-rules.test.ts:
 * further forms of the same classes), each shown on a small page built here, modelled on the markup of
 * such pages (product-page-contract.md; never a copied page): the English-language amazon.co.jp rank
 * label in bullets and in a table row, the informal German store wrapper, music format swatches whose
 * MP3 swatch also holds a "Streaming / Unlimited" button, a 2014 amazon.com film page, a book's buy-box
 * price, buy boxes that hold only a used or other-seller offer (known by ids or only by their "Buy
 * used" header), and the core price block with a Subscribe & Save row.
 * Every page is read both from its fragment document (`parseProductPage`) and from the whole page
 * (`parseProductFromDocument`): the two must agree, so the fragment pass keeps what the rules read.
 */
import { describe, expect, it } from 'vitest';
import { resolveMarketplace, type Marketplace } from '../../core/marketplaces.js';
import type { ProductFields } from '../../core/product.js';
import { isBsrLabel } from '../../worker/parser/bsr.js';
import { unwrapBrand } from '../../worker/parser/byline.js';
import { createDom, releaseDom } from '../../worker/parser/dom.js';
import { parseProductFromDocument, parseProductPage } from '../../worker/parser/index.js';
import { stripScriptsAndStyles } from '../../worker/parser/prepare.js';

const mp = (code: string): Marketplace => resolveMarketplace(code)!;

/** A product page around `body`, with its title and (for swatches) the page's ASIN. */
const productPage = (body: string, asin = 'B000000001'): string =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body>` +
  `<input type="hidden" id="ASIN" name="ASIN" value="${asin}"><div id="centerCol"><h1 id="title"><span id="productTitle">T</span></h1></div>${body}</body></html>`;

/** The fields of a product page, read from the fragment document and checked against the whole page. */
function read(html: string, marketplace: Marketplace): ProductFields {
  const parse = parseProductPage(html, marketplace);
  if (parse.kind !== 'product') throw new Error(`expected a product page, got ${parse.kind}`);
  const doc = createDom(stripScriptsAndStyles(html));
  try {
    expect(parseProductFromDocument(doc, { html, marketplace }), 'fragment and whole-page reads differ').toEqual(parse);
  } finally {
    releaseDom(doc);
  }
  return parse.fields;
}

const offscreenPrice = (cls: string, text: string): string =>
  `<span class="a-price ${cls}" data-a-size="xl"><span class="a-offscreen">${text}</span><span aria-hidden="true">${text}</span></span>`;

describe('rank label "Amazon Bestseller" (English-language amazon.co.jp)', () => {
  const bullets =
    `<div id="detailBulletsWrapper_feature_div"><div id="detailBullets_feature_div"><ul class="a-unordered-list a-nostyle a-vertical a-spacing-none detail-bullet-list">` +
    `<li><span class="a-list-item"><span class="a-text-bold">Publisher &rlm; : &lrm;</span><span>Sony Interactive Entertainment</span></span></li>` +
    `</ul></div></div>` +
    `<ul class="a-unordered-list a-nostyle a-vertical a-spacing-none detail-bullet-list"><li><span class="a-list-item">` +
    `<span class="a-text-bold"> Amazon Bestseller: </span> #4 in Video Games (<a href="/gp/bestsellers/videogames/ref=pd_zg_ts_videogames">See Top 100 in Video Games</a>)` +
    `<ul class="a-unordered-list a-nostyle a-vertical zg_hrsr"><li><span class="a-list-item"> #1 in <a href="/gp/bestsellers/videogames/8019279051/ref=pd_zg_hrsr_videogames">PlayStation 5 Games</a></span></li>` +
    `<li><span class="a-list-item"> #2 in <a href="/gp/bestsellers/videogames/2494234051/ref=pd_zg_hrsr_videogames">Role-Playing Games</a></span></li></ul>` +
    `</span></li></ul>`;

  it('detail bullets: the rank block, with its sub-ranks, and not a details pair', () => {
    const f = read(productPage(bullets), mp('jp'));
    expect(f.status).toBe('ok');
    expect(f.bsr).toEqual({
      rank: 4,
      category: 'Video Games',
      subcategories: [
        { rank: 1, category: 'PlayStation 5 Games' },
        { rank: 2, category: 'Role-Playing Games' },
      ],
    });
    expect(f.details).toEqual({ publisher: 'Sony Interactive Entertainment' });
  });

  it('product-information table row, a rank line without a link', () => {
    const table =
      `<div id="prodDetails"><table id="productDetails_detailBullets_sections1" class="a-keyvalue prodDetTable">` +
      `<tr><th class="a-color-secondary a-size-base prodDetSectionEntry"> ASIN </th><td class="a-size-base prodDetAttrValue"> B0CL5KNB9M </td></tr>` +
      `<tr><th class="a-color-secondary a-size-base prodDetSectionEntry"> Amazon Bestseller </th><td><span><ul class="a-unordered-list a-nostyle a-vertical">` +
      `<li><span class="a-list-item"><span>#4 in Video Games (<a href="/gp/bestsellers/videogames/ref=pd_zg_ts_videogames">See Top 100 in Video Games</a>)</span></span></li>` +
      `<li><span class="a-list-item"><span>#1 in PlayStation 5 Games</span></span></li></ul></span></td></tr></table></div>`;
    const f = read(productPage(table), mp('jp'));
    expect(f.bsr).toEqual({ rank: 4, category: 'Video Games', subcategories: [{ rank: 1, category: 'PlayStation 5 Games' }] });
    expect(f.details).toEqual({ asin: 'B0CL5KNB9M' });
  });

  it('is a label only as a whole label, never inside a badge or heading', () => {
    expect(isBsrLabel('Amazon Bestseller:')).toBe(true);
    expect(isBsrLabel(' Amazon Bestseller ')).toBe(true);
    expect(isBsrLabel('#1 Amazon Bestseller in Video Games')).toBe(false);
    expect(isBsrLabel('Amazon Bestseller-Rang:')).toBe(true);
  });
});

describe('store wrapper "Besuche den X-Store" (informal German)', () => {
  it('is stripped from the byline, as the formal "Besuchen Sie den X-Store" is', () => {
    const link = (text: string): string =>
      `<div id="bylineInfo_feature_div"><div class="a-section a-spacing-none"><a id="bylineInfo" class="a-link-normal" href="/stores/Ravensburger/page/5C0A">${text}</a></div></div>`;
    expect(read(productPage(link('Besuche den Ravensburger-Store')), mp('de')).byline).toEqual(['Ravensburger']);
    expect(read(productPage(link('Besuchen Sie den Ravensburger-Store')), mp('de')).byline).toEqual(['Ravensburger']);
    expect(unwrapBrand('Besuche den Tchibo Store')).toBe('Tchibo');
    expect(unwrapBrand('Besuche den Store')).toBe('Besuche den Store');
  });
});

describe('music format swatches (MP3 / Audio CD / Vinyl)', () => {
  const button = (href: string, inner: string, selected = false): string =>
    `<span class="a-button${selected ? ' a-button-selected' : ''} a-spacing-mini a-button-toggle format"><span class="a-button-inner">` +
    `<a href="${href}" class="a-button-text" role="button">${inner}</a></span></span>`;
  const swatch = (cls: string, buttons: string, olp = ''): string =>
    `<li class="swatchElement ${cls}"><span class="a-list-item">${buttons}<span class="tmm-olp-links">${olp}</span></span></li>`;
  const swatches = (items: string): string =>
    `<div id="tmmSwatches" class="a-row nonJSFormats"><ul class="a-unordered-list a-nostyle a-button-list a-horizontal">${items}</ul></div>`;

  it('a swatch with a "Streaming / Unlimited" button beside the priced "MP3" one is the MP3 format', () => {
    const mp3 =
      button('/Album-Artist/dp/B0MP3ALBUM/ref=tmm_msc_swatch_0?_encoding=UTF8', '<span class="a-text-bold"> Streaming </span><br><span class="a-color-secondary"> Unlimited </span>') +
      button('/Album-Artist/dp/B0MP3ALBUM/ref=tmm_msc_swatch_0?_encoding=UTF8', '<span>MP3</span><br><span class="a-color-secondary"><span class="a-color-secondary">$9.49</span></span>');
    const cd = button('javascript:void(0)', '<span>Audio CD</span><br><span class="a-color-base"><span class="a-size-base a-color-price a-color-price"> $11.88 </span></span>', true);
    const vinyl = button('/Album-Artist/dp/B0VINYL001/ref=tmm_vnl_swatch_0?_encoding=UTF8', '<span>Vinyl</span><br><span class="a-color-secondary"> $19.98 </span>');
    const olp = '<span class="olp-new olp-link"><a class="a-size-mini a-link-normal" href="/gp/offer-listing/B0VINYL001/ref=tmm_vnl_new_olp_0?condition=new">14 New <span class="olp-from">from</span> $19.95</a></span>';
    const html = productPage(swatches(swatch('unselected', mp3) + swatch('selected', cd) + swatch('unselected', vinyl, olp)), 'B0AUDIOCD1');
    const f = read(html, mp('com'));
    expect(f.variant).toBe('Audio CD');
    expect(f.variants).toEqual([
      { name: 'MP3', asin: 'B0MP3ALBUM' },
      { name: 'Audio CD', asin: 'B0AUDIOCD1' },
      { name: 'Vinyl', asin: 'B0VINYL001' },
    ]);
  });

  it('names as the page shows them ("Streamen" buttons left out, "Audio-CD", "LP Record")', () => {
    const mp3 =
      button('/dp/B0MP3ALBUM/ref=tmm_msc_swatch_0', '<span class="a-text-bold"> Streamen </span><br><span class="a-color-secondary"> Unlimited </span>') +
      button('/dp/B0MP3ALBUM/ref=tmm_msc_swatch_0', '<span>MP3</span><br><span class="a-color-secondary">EUR 10,99</span>');
    const cd = button('javascript:void(0)', '<span>Audio-CD</span><br><span class="a-color-base"> EUR 14,99 </span>', true);
    const lp = button('/Album-Vinyl/dp/B0VINYL001/ref=tmm_vnl_swatch_0', '<span>LP Record</span><br><span class="a-color-secondary"> EUR 18,99 </span>');
    const f = read(productPage(swatches(swatch('unselected', mp3) + swatch('selected', cd) + swatch('unselected', lp)), 'B0AUDIOCD1'), mp('de'));
    expect(f.variant).toBe('Audio-CD');
    expect(f.variants.map((v) => `${v.name}=${v.asin}`)).toEqual(['MP3=B0MP3ALBUM', 'Audio-CD=B0AUDIOCD1', 'LP Record=B0VINYL001']);
  });

  it('two priced formats in one swatch both count; a swatch of unpriced buttons keeps its first', () => {
    const two =
      button('/dp/B0KINDLE01/ref=tmm_kin_swatch_0', '<span>Kindle</span><br><span class="a-color-secondary">$9.99</span>') +
      button('/dp/B0AUDIBLE1/ref=tmm_aud_swatch_0', '<span>Audiobook</span><br><span class="a-color-secondary">$0.00</span>');
    const unpriced = button('/dp/B0STREAM01/ref=tmm_msc_swatch_0', '<span>Streaming</span>') + button('/dp/B0STREAM01/ref=x', '<span>Unlimited</span>');
    const cd = button('javascript:void(0)', '<span>Audio CD</span><br><span class="a-color-price">$11.88</span>', true);
    const f = read(productPage(swatches(swatch('unselected', two) + swatch('unselected', unpriced) + swatch('selected', cd)), 'B0AUDIOCD1'), mp('com'));
    expect(f.variants.map((v) => `${v.name}=${v.asin}`)).toEqual(['Kindle=B0KINDLE01', 'Audiobook=B0AUDIBLE1', 'Streaming=B0STREAM01', 'Audio CD=B0AUDIOCD1']);
  });
});

describe('2014 amazon.com multi-format film page (DVD / Blu-ray)', () => {
  const title =
    `<div class="bucket"><div class="content"><h1 class="parseasinTitle "><span id="btAsinTitle">Winter Tale (Two-Disc Blu-ray / DVD + Digital Copy) (2013)</span></h1>` +
    `<div class="subTitle" style="margin: 2px 0px; font-size: 11px;">` +
    `<a href="/s?ie=UTF8&amp;field-keywords=Ann%20Actor&amp;ref=dp_dvd_bl_act&amp;search-alias=dvd">Ann Actor</a> <span class="byLinePipe">(Actor)</span>, ` +
    `<a href="/s?ie=UTF8&amp;field-keywords=Ben%20Actor&amp;ref=dp_dvd_bl_act&amp;search-alias=dvd">Ben Actor</a> <span class="byLinePipe">(Actor)</span>, ` +
    `<a href="/s?ie=UTF8&amp;field-keywords=Cy%20Director&amp;ref=dp_dvd_bl_dir&amp;search-alias=dvd">Cy Director</a> <span class="byLinePipe">(Director)</span>` +
    `&nbsp;<span class="$grayColor">|</span>&nbsp;<span class="byLinePipe">Rated:</span>&nbsp;PG&nbsp;<span class="$grayColor">|</span>&nbsp;<span class="byLinePipe">Format:</span>&nbsp;Blu-ray </div></div></div>`;
  const jumpBar =
    `<div class="jumpBar"><span class="tiny"><span class="crAvgStars" style="white-space:no-wrap;"><span class="asinReviewsSummary acr-popover non-lazy" name="B0FILMBR01">` +
    `<a href="http://www.amazon.com/Winter-Tale/product-reviews/B0FILMBR01"><span class="swSprite s_star_4_5 " title="4.6 out of 5 stars"><span>4.6 out of 5 stars</span></span>&nbsp;</a>` +
    `&nbsp;<span class="histogramButton"><a href="http://www.amazon.com/Winter-Tale/product-reviews/B0FILMBR01"><span class="swSprite s_chevron "><span>See all reviews</span></span></a></span></span>` +
    `(<a href="http://www.amazon.com/Winter-Tale/product-reviews/B0FILMBR01">6,468 customer reviews</a>)</span></span></div>`;
  const priceBlock =
    `<div class="buying" id="priceBlock"><table class="product"><tr><td class="priceBlockLabel">List Price:</td><td><span id="listPriceValue" class="listprice">$44.99</span></td></tr>` +
    `<tr id="actualPriceRow"><td id="actualPriceLabel" class="priceBlockLabelPrice">Price:</td><td id="actualPriceContent"><span id="actualPriceValue"><b class="priceLarge">$26.92</b></span></td></tr></table></div>`;
  const usedBox =
    `<div id="buyboxusedDivId" class="buying"><table id="buyboxusedTable" class="buyBox"><tr><td><div id="buyUsedDiv"><b class="small">Buy Used</b></div>` +
    `<div id="usedItemExpandBuyingInfoDiv"><b class="priceLarge" style="font-weight: bold;">$24.74</b></div></td></tr></table></div>`;
  const matrix =
    `<table border="0" cellpadding="0" cellspacing="0" class="twisterMediaMatrix"><tbody><tr><td><div class="cBox dkBlueBox"><div class="cBoxInner">` +
    `<table><thead><tr><th class="tmm_videoColumnHeader">Watch Instantly</th></tr></thead><tbody id="video_download_meta_binding_0_winner">` +
    `<tr class="bucketBorderTop" id="tmm_B0INSTANT1"><td class="tmm_bookTitle noLinkDecoration "><a href="http://www.amazon.com/Winter-Tale-Bonus/dp/B0INSTANT1">Winter Tale (Plus Bonus Features)</a></td><td class=" price "> $14.99 </td></tr></tbody></table>` +
    `<table><thead><tr><th colspan="3"><h3 class="tmm_formatColumnHeader">Other Formats &amp; Versions</h3></th></tr></thead>` +
    `<tbody id="multi_format_meta_binding_winner"><tr class="activeRow bucketBorderTop" id="tmm_B0FILMBR01"><td class="tmm_buttonTD"></td>` +
    `<td class=" tmm_videoMetaBinding tmm_bookTitle noLinkDecoration "> Multi-Format </td><td class="tmm_bookTitle noLinkDecoration "> 2-Disc Version </td><td class=" amazonPriceForVideo "> $26.92 </td></tr></tbody>` +
    `<tbody id="blu_ray_meta_binding_winner"><tr class="bucketBorderTop" id="tmm_B0FILMBR03"><td class="tmm_buttonTD"></td>` +
    `<td class=" tmm_videoMetaBinding tmm_bookTitle noLinkDecoration "> Blu-ray </td><td class="tmm_bookTitle noLinkDecoration "><a href="http://www.amazon.com/Winter-Tale-Blu-ray/dp/B0FILMBR03">3-Disc Version</a></td><td class=" amazonPriceForVideo "> $48.67 </td></tr></tbody>` +
    `<tbody id="dvd_meta_binding_winner"><tr class="bucketBorderTop" id="tmm_B0FILMDVD1"><td class="tmm_buttonTD"></td>` +
    `<td class=" tmm_videoMetaBinding tmm_bookTitle noLinkDecoration "> DVD </td><td class="tmm_bookTitle noLinkDecoration "><a href="http://www.amazon.com/Winter-Tale-DVD/dp/B0FILMDVD1">1-Disc Version</a></td><td class=" amazonPriceForVideo "> $14.99 </td></tr></tbody>` +
    `</table></div></div></td></tr></tbody></table>`;
  const html =
    `<!DOCTYPE html><html><head><title>Winter Tale</title></head><body><input type="hidden" id="ASIN" name="ASIN" value="B0FILMBR01">` +
    `<table><tr><td>${usedBox}</td></tr></table>${title}${jumpBar}<hr><table><tr><td>${priceBlock}</td></tr></table>${matrix}</body></html>`;
  const f = read(html, mp('com'));

  it('byline: the contributor links of the subtitle, without roles, not "Rated" / "Format"', () =>
    expect(f.byline).toEqual(['Ann Actor', 'Ben Actor', 'Cy Director']));
  it('variants: one per format row of the media matrix; the active row is the selected format', () => {
    expect(f.variant).toBe('Multi-Format');
    expect(f.variants).toEqual([
      { name: 'Multi-Format', asin: 'B0FILMBR01' },
      { name: 'Blu-ray', asin: 'B0FILMBR03' },
      { name: 'DVD', asin: 'B0FILMDVD1' },
    ]);
  });
  it('price: the price block, not the used buy box beside it', () => expect(f.price).toEqual({ amount: 26.92, currency: 'USD' }));
  it('rating and count from the bar under the title, not the stars link', () => {
    expect(f.rating).toBe(4.6);
    expect(f.ratings_count).toBe(6468);
  });
  it('the 2008 layout still reads its author link', () => {
    const old =
      `<!DOCTYPE html><html><body><div class="buying"><h1 class="parseasinTitle"><span id="btAsinTitle">Ruby Book</span></h1>` +
      `<a href="/exec/obidos/search-handle-url?index=books-jp&amp;field-author=Hara">原 悠</a> (著) <br /></div>` +
      `<div class="buying"><a href="/gp/help">在庫状況について</a></div></body></html>`;
    expect(read(old, mp('jp')).byline).toEqual(['原 悠']);
  });
});

describe("a book's buy-box price when the core price block is absent", () => {
  const tmm = (price: string): string =>
    `<div id="tmmSwatches" class="a-row nonJSFormats"><ul><li class="swatchElement selected"><span class="a-list-item"><span class="a-button a-button-selected a-button-toggle format">` +
    `<span class="a-button-inner"><a href="javascript:void(0)" class="a-button-text"><span>Paperback</span><br><span class="a-color-base"> ${price} </span></a></span></span></span></li></ul></div>`;

  it('media accordion: the "Buy new" row, not the used or rental rows', () => {
    const row = (id: string, header: string, price: string, active = false): string =>
      `<div id="${id}" class="a-box${active ? ' a-accordion-active' : ''} accordion-row"><div class="a-box-inner a-accordion-row-container">` +
      `<div class="a-accordion-row-a11y"><a data-action="a-accordion" class="a-accordion-row a-declarative accordion-header" href="#"><h5><div class="a-row">` +
      `<div class="a-column a-span8"><span class="a-size-medium header-text">${header}</span></div>` +
      `<div class="a-column a-span4 a-text-right a-span-last"><span class="a-size-medium a-color-price header-price"> ${price} </span></div></div></h5></a></div>` +
      `<div class="a-accordion-inner accordion-row-content"><div id="${id === 'newOfferAccordionRow' ? 'merchant-info' : `${id}-merchant`}">Ships from and sold by Amazon.com.</div></div></div></div>`;
    const box =
      `<div id="buybox_feature_div"><div id="mediaOlp"><div class="a-box-group a-accordion">${row('rentOfferAccordionRow', 'Rent', '$19.60')}` +
      `${row('newOfferAccordionRow', 'Buy new', '$35.64', true)}${row('usedOfferAccordionRow', 'Buy used', '$28.00')}</div></div></div>`;
    expect(read(productPage(tmm('$19.60 - $35.64') + box), mp('com')).price).toEqual({ amount: 35.64, currency: 'USD' });
  });

  it('the .offer-price of the buy box (#price of its qualified box); of a new-offer section', () => {
    const priceIn = `<div id="buybox"><div id="qualifiedBuybox"><span id="price" class="a-size-medium a-color-price inlineBlock-display offer-price a-text-normal price3P">$13.49</span></div></div>`;
    expect(read(productPage(priceIn), mp('com')).price).toEqual({ amount: 13.49, currency: 'USD' });
    const section =
      `<div id="buybox"><div class="a-box rbbSection selected dp-accordion-active"><div class="a-box-inner"><div class="a-section rbbHeader dp-accordion-row">` +
      `<span class="a-text-bold">Neu kaufen</span> <span class="a-size-medium a-color-price offer-price a-text-normal">EUR 39,43</span></div></div></div></div>`;
    expect(read(productPage(section), mp('de')).price).toEqual({ amount: 39.43, currency: 'EUR' });
  });
});

describe('a book whose buy box holds only a used or other-seller offer -> price null', () => {
  const usedSection = (id: string, header: string, price: string): string =>
    `<div id="buybox" class="a-row a-spacing-medium"><div class="a-box rbbSection singleUBB"><div class="a-box-inner"><div class="a-section a-spacing-none a-padding-none">` +
    `<div ${id ? `id="${id}" ` : ''}class="a-section a-spacing-none a-padding-none rbbHeader dp-accordion-row"><div class="a-row"><span class="a-text-bold">${header}</span></div>` +
    `<div class="a-row"><span class="inlineBlock-display"><span class="a-size-medium a-color-price offer-price a-text-normal">${price}</span></span></div></div>` +
    `<div id="usedbuyBox" class="rbbContent dp-accordion-inner"><div class="a-row"><strong> Used: Good </strong></div>` +
    `<div class="a-row">Sold by <a class="a-link-normal" href="/gp/help/seller/at-a-glance.html?seller=A1SELLER">BookSeller</a></div></div></div></div></div></div>`;
  const swatchPrice = `<div id="tmmSwatches"><ul><li class="swatchElement selected"><span class="a-button a-button-selected"><a class="a-button-text" href="javascript:void(0)"><span>Paperback</span><br><span class="a-color-price">$22.46</span></a></span></li></ul></div>`;

  it('#usedBuySection / "Buy Used" / "Gebraucht kaufen" headers', () => {
    expect(read(productPage(usedSection('usedBuySection', 'Buy Used', 'CDN$ 28.00')), mp('ca')).price).toBeNull();
    expect(read(productPage(usedSection('', 'Buy used', '$28.00')), mp('com')).price).toBeNull();
    expect(read(productPage(usedSection('', 'Gebraucht kaufen', 'EUR 5,29')), mp('de')).price).toBeNull();
  });

  it('the selected format shows the used offer as its price: still null', () =>
    expect(read(productPage(swatchPrice + usedSection('usedBuySection', 'Buy Used', '$22.46').replace('singleUBB', 'singleUBB" id="usedOnlyBuybox')), mp('com')).price).toBeNull());

  it('"See All Buying Options" only (other sellers), with #olp_feature_div', () => {
    const box =
      `<div id="buybox"><div id="unqualifiedBuyBox" class="a-box"><div class="a-box-inner"><div class="a-text-center a-spacing-mini">` +
      `<a href="/gp/offer-listing/0000000001/ref=dp_olp_all_mbc?condition=all">11&nbsp;used&nbsp;&amp;&nbsp;new</a>&nbsp;from&nbsp;<span class="a-color-price">$18.93</span></div>` +
      `<span id="buybox-see-all-buying-choices" class="a-button a-button-primary"><span class="a-button-inner"><a href="/gp/offer-listing/0000000001" class="a-button-text">See All Buying Options</a></span></span></div></div></div>` +
      `<div id="olp_feature_div"><span class="olp-padding-right"><a href="/gp/offer-listing/0000000001/ref=dp_olp_new?condition=new">49 new</a> from <span class="a-color-price">$18.93</span></span></div>`;
    expect(read(productPage(swatchPrice + box), mp('com')).price).toBeNull();
  });

  it('the 2014 layout: a used buy box only', () => {
    const used = `<div id="buyboxusedDivId" class="buying"><div id="buyUsedDiv"><b class="small">Buy Used</b></div><b class="priceLarge">$24.74</b></div>`;
    expect(read(productPage(used), mp('com')).price).toBeNull();
  });
});

describe('price with one-time and Subscribe & Save rows (contract ruling)', () => {
  const accordion = (rows: string): string => `<div id="apex_desktop"><div id="buyBoxAccordion" class="a-accordion">${rows}</div></div>`;
  const oneTime =
    `<div id="newAccordionRow_0" class="a-box a-accordion-active"><div class="a-box-inner"><div id="corePriceDisplay_desktop_feature_div" class="celwidget">` +
    `<span class="a-price aok-align-center reinventPricePriceToPayMargin priceToPay">` +
    `<span class="a-offscreen">$19.99</span><span aria-hidden="true"><span class="a-price-symbol">$</span><span class="a-price-whole">19<span class="a-price-decimal">.</span></span><span class="a-price-fraction">99</span></span></span>` +
    `</div></div></div>`;
  const sns =
    `<div id="snsAccordionRowMiddle" class="a-box"><div class="a-box-inner"><span class="a-text-bold">Subscribe &amp; Save:</span>` +
    `<span id="sns-base-price">${offscreenPrice('priceToPay', '$18.99')}</span></div></div>`;

  it('one-time purchase and Subscribe & Save rows: the one-time price, whichever row comes first', () => {
    expect(read(productPage(accordion(oneTime + sns)), mp('com')).price).toEqual({ amount: 19.99, currency: 'USD' });
    expect(read(productPage(accordion(sns + oneTime)), mp('com')).price).toEqual({ amount: 19.99, currency: 'USD' });
  });

  it('still null: two core blocks with different prices, a price range, S&S alone', () => {
    const block = (p: string): string => `<div id="corePriceDisplay_desktop_feature_div">${offscreenPrice('priceToPay', p)}</div>`;
    expect(read(productPage(block('$1.00') + block('$2.00')), mp('com')).price).toBeNull();
    const range =
      `<div id="corePrice_desktop"><span class="a-price-range">${offscreenPrice('apexPriceToPay', 'R$169,00')}<span class="a-price-dash">-</span>${offscreenPrice('apexPriceToPay', 'R$199,90')}</span></div>`;
    expect(read(productPage(range), mp('br')).price).toBeNull();
    expect(read(productPage(accordion(sns)), mp('com')).price).toBeNull();
  });
});
