/**
 * Version 2 readers on small synthetic pages of the layouts and wordings the development pages showed
 * beyond the newest buy box (older buy boxes, localized labels, old book pages): each page is read by
 * the fragment pass and by the whole-document path, which must agree.
 */
import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { resolveMarketplace, type Marketplace } from '../../core/marketplaces.js';
import type { ProductFields } from '../../core/product.js';
import { parseProductFromDocument, parseProductPage } from '../../worker/parser/index.js';

const mp = (code: string): Marketplace => resolveMarketplace(code)!;
const page = (body: string, title = '<span id="productTitle">T</span>'): string =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>${title}${body}</body></html>`;

function readFragments(html: string, code: string): ProductFields {
  const r = parseProductPage(html, mp(code));
  if (r.kind !== 'product') throw new Error(`expected a product page, got ${r.kind}`);
  return r.fields;
}

function readWhole(html: string, code: string): ProductFields {
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
function read(html: string, code = 'com'): ProductFields {
  const f = readFragments(html, code);
  expect(readWhole(html, code)).toEqual(f);
  return f;
}

const priceBlock = '<div id="price"><span id="priceblock_ourprice">$12.00</span></div>';

describe('delivery in older and localized buy boxes', () => {
  it('the address picker of the 2015-17 buy box is the place; a prompt to choose one is not', () => {
    const picker = (label: string, price = priceBlock): string => `${price}<div id="buybox">
      <div id="fast-track-message"><div><b>Want it Friday, June 30?</b> Order within <span>18 hrs</span> and choose One-Day Shipping at checkout.
        <a href="#">Details</a></div></div>
      <div><span class="a-text-bold">Ship to:</span></div>
      <div><span class="a-declarative"><a class="a-popover-trigger"><span class="a-color-base lux-location-label"> ${label} </span></a></span></div></div>`;
    expect(read(page(picker('kirkland, 98033'))).delivery).toEqual({
      location: 'kirkland, 98033', promise: 'Want it Friday, June 30? Order within 18 hrs and choose One-Day Shipping at checkout',
    });
    expect(read(page(picker('Select a shipping address:'))).delivery?.location).toBeNull();
    expect(read(page(picker('Selecciona una dirección de envío:', '<div id="price"><span id="priceblock_ourprice">12,00 €</span></div>')), 'es').delivery?.location).toBeNull();
  });

  it('the 2012-13 fast-track message (#ftMessage) is the promise, without its Details link', () => {
    const html = page(`${priceBlock}<div id="ftMessage" class="buying"><b>Want it tomorrow, July 19?</b>
      <input type="hidden" name="x" value="next"> Choose <b>One-Day Shipping</b> at checkout. <a href="#">Details</a><br></div>`);
    expect(read(html).delivery).toEqual({ location: null, promise: 'Want it tomorrow, July 19? Choose One-Day Shipping at checkout' });
  });

  it('a message nested in its container is read alone, without the upsell line after it; "Learn more" is a link text', () => {
    const html = page(`${priceBlock}<div id="fast-track-message"><div>
      <div id="delivery-message"><span class="a-text-bold">FREE Delivery <b>Friday, April 26 - Wednesday, May 1</b></span></div>
      <div id="upsell-message">Get it <b>Monday, April 29</b> if you choose paid <b>Expedited Shipping</b> at checkout <a href="#">Details</a></div>
    </div></div>`);
    expect(read(html).delivery?.promise).toBe('FREE Delivery Friday, April 26 - Wednesday, May 1');
    const learn = page(`${priceBlock}<div id="delivery-message">This item ships to Hong Kong. Want it Thursday, Nov. 15? Order within 2 hrs and choose AmazonGlobal Priority Shipping at checkout. <a href="#">Learn more</a></div>`);
    expect(read(learn).delivery?.promise).toBe('This item ships to Hong Kong. Want it Thursday, Nov. 15? Order within 2 hrs and choose AmazonGlobal Priority Shipping at checkout');
  });

  it('localized deliver-to wrappers: Spanish "Se entregará a …", Japanese "…にお届け"', () => {
    const line = (text: string): string => `<div id="contextualIngressPtLabel_deliveryShortLine"><span>${text}</span></div>`;
    expect(read(page(line('Se entregará a Murcia 30001')), 'es').delivery?.location).toBe('Murcia 30001');
    expect(read(page(line('東京都 160-0022にお届け')), 'jp').delivery?.location).toBe('東京都 160-0022');
  });
});

describe('Prime signals of older and localized buy boxes', () => {
  it('the 2012-14 opt-in checkbox for Prime shipping is a signal of the offer, even while drawn hidden', () => {
    const html = page(`${priceBlock}<div id="buybox"><div id="prime-rcx-subs-checkbox-outer" style="display:none;"><div class="buying">
      <input type="checkbox" id="bbop-check-box"><label for="bbop-check-box">Yes, I want <b>FREE Two-Day<br>Shipping</b> with <a href="#">Amazon Prime</a></label>
      </div></div><div id="merchant-info">Ships from and sold by Amazon.com.</div></div>`);
    expect(read(html).prime).toBe(true);
  });

  it('a localized "FREE delivery with Amazon Prime" price badge is a signal of the offer', () => {
    const badge = (text: string, price: string): string => page(`<div id="price"><span id="priceblock_ourprice">${price}</span></div>
      <span id="priceBadging_feature_div"><span class="a-size-base a-color-base">${text} <a href="#">Details</a></span></span>`);
    expect(read(badge('Versandkostenfreie Lieferung mit <b>Amazon Prime</b> für Bestellungen im Gesamtwert von mindestens <b>EUR 20</b>.', 'EUR 9,99'), 'de').prime).toBe(true);
    expect(read(badge('Livraison gratuite avec <b>Amazon Prime</b>.', 'EUR 9,99'), 'fr').prime).toBe(true);
    expect(read(badge('Livraison en 5 jours.', 'EUR 9,99'), 'fr').prime).toBe(false);
  });
});

describe('ratings histogram of older layouts', () => {
  const stars = '<span id="acrPopover" title="4.2 out of 5 stars"><span class="a-icon-alt">4.2 out of 5 stars</span></span>';
  it('the 2010-14 summary: each row\'s tooltip percentage, a row with no reviews 0%', () => {
    const row = (star: string, n: number, title: string, count: number): string => `<div class="fl histoRow${star} clearboth" title="${title}">
      <a href="/product-reviews/X"><div class="histoRating fl">${n} star</div><div class="histoFullBar"><div class="histoRatingBar"></div></div>
      <div class="histoCount fl">${count}</div></a></div>`;
    const box = (rows: string): string => page(`${stars}<div id="revHist-dpReviewsSummaryWithQuotes-B000000000" class="txtsmaller">${rows}</div>`);
    const rows = [row('five', 5, '64% of reviews have 5 stars', 7), row('four', 4, '9% of reviews have 4 stars', 1),
      row('three', 3, '18% of reviews have 3 stars', 2), row('two', 2, 'No 2-star reviews', 0), row('one', 1, '9% of reviews have 1 stars', 1)];
    expect(read(box(rows.join(''))).rating_histogram).toEqual({ '5': 64, '4': 9, '3': 18, '2': 0, '1': 9 });
    // A row without a percentage whose count is not 0 does not read: no histogram rather than a guess.
    expect(read(box(rows.slice(0, 3).join('') + row('two', 2, 'Some 2-star reviews', 3) + rows[4])).rating_histogram).toBeNull();
  });

  it('a meter labelled with a decimal percentage is not read as its tail; the tooltip\'s whole percentage is', () => {
    const row = (n: number, word: string, pct: number, exact: string): string => `<tr class="a-histogram-row">
      <td><a title="${pct}% der Rezensionen haben ${n} Sterne" href="/product-reviews/X?filterBy=add${word}Star">${n} Sterne</a></td>
      <td><a title="${pct}% der Rezensionen haben ${n} Sterne" href="#"><div class="a-meter" aria-label="${exact}%"><div class="a-meter-bar"></div></div></a></td>
      <td><a href="#">3</a></td></tr>`;
    const html = page(`<span id="acrPopover" title="4,2 von 5 Sternen"><span class="a-icon-alt">4,2 von 5 Sternen</span></span>
      <table id="histogramTable">${row(5, 'Five', 66, '65.7534246575342')}${row(4, 'Four', 12, '12.328767123287671')}${row(3, 'Three', 7, '6.8493150684931505')}${row(2, 'Two', 7, '6.8493150684931505')}${row(1, 'One', 8, '8.21917808219178')}</table>`);
    expect(read(html, 'de').rating_histogram).toEqual({ '5': 66, '4': 12, '3': 7, '2': 7, '1': 8 });
  });
});

describe('content of older book pages', () => {
  it('the 2010-14 "Book Description" box is the description (its body only), before "Editorial Reviews"', () => {
    const html = page(`<div id="ps-content" class="bucket"><h2>Book Description</h2>
      <div class="buying"><span class="byLinePipe">Release date: </span><span>August 14, 2012</span></div>
      <div class="content"><div id="outer_postBodyPS"><div id="postBodyPS"><div><p>In this <i>invaluable</i> introduction.</p><p>Second paragraph.</p></div></div></div>
      <div id="expandPS"><a class="showMore" href="#">Show more</a></div><div id="collapsePS"><a class="showLess" href="#">Show less</a></div>
      <noscript><div id="postBodyPS"><p>In this invaluable introduction.</p></div></noscript></div></div>
      <div class="bucket" id="productDescription"><h2>Editorial Reviews</h2><div class="content"><b>About the Author</b> Someone.</div></div>`);
    expect(read(html).description).toBe('In this invaluable introduction. Second paragraph.');
  });
});

describe('gallery data written as scripts of older pages', () => {
  const script = (body: string): string => `<script type="text/javascript">${body}</script>`;
  it('2015-19: a JavaScript literal with bare keys and single quotes; hiRes, else large, each once', () => {
    const html = page(`<img id="landingImage" data-old-hires="https://m.media-amazon.com/images/I/51AAA._SL1000_.jpg" src="x.jpg">
      ${script(`P.when('A').register('ImageBlockATF', function (A) { var data = {
        colorImages: { initial: [
          { hiRes: 'https://m.media-amazon.com/images/I/51AAA._SL1000_.jpg', large: 'https://m.media-amazon.com/images/I/41AAA.jpg', main: { 'https://m.media-amazon.com/images/I/51AAA._SX355_.jpg': ['355', '355'] }, variant: 'MAIN' },
          { hiRes: null, large: 'https://m.media-amazon.com/images/I/51BBB.jpg', variant: 'PT01', },
        ] },
        mainImageHeightPartitions: null,
      }; });`)}`);
    const f = read(html);
    expect(f.images).toEqual(['https://m.media-amazon.com/images/I/51AAA._SL1000_.jpg', 'https://m.media-amazon.com/images/I/51BBB.jpg']);
    expect(f.images[0]).toBe(f.image_url);
  });

  it('2010-14: `colorImages = {"initial": …}` whose entries hold only "large" (http written https)', () => {
    const html = page(`<img id="main-image" src="http://ecx.images-amazon.com/images/I/51xBDt4OkBL._SY300_.jpg">
      ${script(`var colorImages = {"initial":[{"large":"http://ecx.images-amazon.com/images/I/51xBDt4OkBL.jpg","landing":["http://ecx.images-amazon.com/images/I/51xBDt4OkBL._SY300_.jpg"],"thumb":"http://ecx.images-amazon.com/images/I/51xBDt4OkBL._SS30_.jpg"}]};
      var data = { colorImages: colorImages ? colorImages[data.defaultColor] : [] };`)}`);
    const f = read(html);
    expect(f.image_url).toBe('https://ecx.images-amazon.com/images/I/51xBDt4OkBL._SY300_.jpg');
    expect(f.images).toEqual(['https://ecx.images-amazon.com/images/I/51xBDt4OkBL.jpg']);
  });

  it('gallery data that is not only a literal is not read (no guessed list)', () => {
    const html = page(`<img id="landingImage" src="https://m.media-amazon.com/images/I/51AAA.jpg">
      ${script(`var data = { colorImages: { initial: [ { hiRes: base + '51AAA.jpg' } ] } };`)}`);
    expect(read(html).images).toEqual([]);
  });
});

describe('byline and formats of older layouts', () => {
  const oldTitle = (title: string, byline: string): string =>
    `<div class="buying"><h1 class="parseasinTitle"><span id="btAsinTitle">${title}</span></h1><span>${byline}</span></div>`;
  it('a contributor linked to the author\'s page, or a brand linked to a brand search', () => {
    const author = page('', oldTitle('No god but God <span>[Paperback]</span>', '<a href="http://www.amazon.com/Reza-Aslan/e/B001JONKIK">Reza Aslan</a> <span class="byLinePipe">(Author)</span>'));
    expect(read(author).byline).toEqual(['Reza Aslan']);
    const brand = page('', oldTitle('Kindle Keyboard 3G', 'by&#160;<a href="/s/ref=bl_sr?_encoding=UTF8&amp;field-brandtextbin=Amazon&amp;node=133140011">Amazon</a>'));
    expect(read(brand).byline).toEqual(['Amazon']);
  });

  it('a brand line that is only a logo: the brand its store link names', () => {
    const html = page('<a id="brand" class="a-link-normal" href="/Fruit-of-the-Loom/b/ref=w_bl?ie=UTF8&amp;node=2529449011&amp;field-lbr_brands_browse-bin=Fruit+of+the+Loom"><img alt="" src="logo.jpg"></a>');
    expect(read(html).byline).toEqual(['Fruit of the Loom']);
  });

  it('the 2010-14 book formats table: one variant per row, the active row the page\'s own', () => {
    const row = (asin: string, name: string, active = false): string => `<tbody><tr class="${active ? 'activeRow ' : ''}bucketBorderTop" id="tmm_${asin}">
      <td class="tmm_bookTitle noLinkDecoration">${active ? name : `<a href="http://www.amazon.com/x/dp/${asin}">${name}</a>`}</td><td class="price">$1.00</td></tr></tbody>`;
    const html = page(`<input type="hidden" id="ASIN" name="ASIN" value="140006922X">
      <table class="twisterMediaMatrix">${row('B00BRUQ7ZY', 'Kindle Edition')}${row('140006922X', 'Hardcover', true)}${row('B00DYMLQEU', 'Audible Audio Edition, Unabridged')}</table>`,
    oldTitle('Zealot', ''));
    const f = read(html);
    expect(f.variant).toBe('Hardcover');
    expect(f.variants).toEqual([
      { name: 'Kindle Edition', asin: 'B00BRUQ7ZY' }, { name: 'Hardcover', asin: '140006922X' }, { name: 'Audible Audio Edition, Unabridged', asin: 'B00DYMLQEU' },
    ]);
  });
});

describe('the merchant in buy boxes other than the tabular one', () => {
  const grid = (rows: [string, string][], wrapper = 'offer-display-features'): string => page(`${priceBlock}<div id="buybox"><div id="${wrapper}">${rows
    .map(([l, v]) => `<div class="offer-display-feature-label"><span>${l}</span></div><div class="offer-display-feature-text"><span class="offer-display-feature-text-message">${v}</span></div>`)
    .join('')}</div></div>`);
  it('the two-row grid without feature wrappers, and localized labels', () => {
    expect(read(grid([['Ships from', 'Amazon'], ['Sold by', 'Acme']])).buy_box).toEqual({
      seller_name: 'Acme', seller_id: null, ships_from: 'Amazon', sold_by_amazon: false, fulfilled_by_amazon: true,
    });
    const es = page(`<div id="price"><span id="priceblock_ourprice">12,00 €</span></div><div id="buybox"><div id="offer-display-features">
      <div class="offer-display-feature-label"><span>Envío</span></div><div class="offer-display-feature-text"><span>Amazon</span></div>
      <div class="offer-display-feature-label"><span>Vendido por</span></div><div class="offer-display-feature-text"><span>Tienda X</span></div></div></div>`);
    expect(read(es, 'es').buy_box).toEqual({ seller_name: 'Tienda X', seller_id: null, ships_from: 'Amazon', sold_by_amazon: false, fulfilled_by_amazon: true });
  });

  it('one combined "Shipper / Seller" row is both', () => {
    expect(read(grid([['Shipper / Seller', 'Amazon.com']])).buy_box).toEqual({
      seller_name: 'Amazon.com', seller_id: null, ships_from: 'Amazon.com', sold_by_amazon: true, fulfilled_by_amazon: true,
    });
  });

  it('"Ships from and sold by" with a packaging note; Amazon\'s own retail entities ship their stock', () => {
    const line = (text: string): string => page(`${priceBlock}<div class="buying"><span class="availGreen">In Stock.</span> ${text}</div>`);
    expect(read(line('Ships from and sold by Amazon.com in easy-to-open packaging.')).buy_box).toEqual({
      seller_name: 'Amazon.com', seller_id: null, ships_from: 'Amazon.com', sold_by_amazon: true, fulfilled_by_amazon: true,
    });
    expect(read(line('Ships from and sold by Amazon Digital Services in certified Frustration-Free Packaging.')).buy_box).toEqual({
      seller_name: 'Amazon Digital Services', seller_id: null, ships_from: 'Amazon Digital Services', sold_by_amazon: true, fulfilled_by_amazon: true,
    });
  });
});

describe('rating and stock lines of 2010-14 pages', () => {
  const summary = (asin: string, stars: string): string =>
    `<span class="crAvgStars"><span class="asinReviewsSummary" name="${asin}"><a href="/product-reviews/${asin}"><span class="swSprite" title="${stars} out of 5 stars"><span>${stars} out of 5 stars</span></span></a></span>
     (<a href="/product-reviews/${asin}">2,463 customer reviews</a>)</span>`;
  it('a review summary naming another product (a carousel item) is never the product\'s rating', () => {
    const carousel = page(`<input type="hidden" id="ASIN" name="ASIN" value="1423146727"><div class="rating-price"><span class="rating-stars">${summary('1423140605', '4.8')}</span></div>`);
    expect(read(carousel)).toMatchObject({ rating: null, ratings_count: null });
    const own = page(`<input type="hidden" id="ASIN" name="ASIN" value="140006922X"><span class="rating-stars">${summary('0385739761', '3.0')}</span>${summary('140006922X', '3.9')}`);
    expect(read(own)).toMatchObject({ rating: 3.9, ratings_count: 2463 });
  });

  it('"In stock on <date>" is a back order', () => {
    const html = page(`${priceBlock}<div class="buying"><span class="availOrange">In stock on July 23, 2013.</span><br>Order it now.</div>`);
    expect(read(html).availability).toEqual({ status: 'back_order', text: 'In stock on July 23, 2013.', quantity: null });
  });
});

describe('bullets and Subscribe & Save of 2015-24 layouts', () => {
  it('"About this item" split over several lists; the older "Product Features" bucket below the fold', () => {
    const facts = page(`<div id="productFactsDesktopExpander"><h3 class="product-facts-title"> About this item </h3>
      <ul class="a-unordered-list"><li><span class="a-list-item">First</span></li></ul><ul class="a-unordered-list"><li><span class="a-list-item">Second</span></li></ul>
      <hr><ul><li>Not a bullet</li></ul></div>`);
    expect(read(facts).feature_bullets).toEqual(['First', 'Second']);
    const btf = page(`<div id="feature-bullets-btf"><table><tr><td class="bucket normal"><h2>Product Features</h2><div class="content"><ul>
      <li>A convenient introductory pack</li><li>Attachment type: TR</li></ul></div></td></tr></table></div>`);
    expect(read(btf).feature_bullets).toEqual(['A convenient introductory pack', 'Attachment type: TR']);
  });

  it('the 2017-18 buy box accordion\'s Subscribe & Save price', () => {
    const html = page(`<div id="snsBuyBoxAccordion"><div id="oneTimeBuyBox" class="a-box a-accordion-active"><span class="a-text-bold">One-time purchase:</span>
      <span class="a-color-price">EUR 9,49</span></div><div id="snsBuyBox" class="a-box"><span class="a-text-bold">Spar-Abo:</span>
      <span id="subscriptionPrice" class="a-color-price"> EUR 8,54 </span></div></div><div id="price"><span id="priceblock_ourprice">EUR 9,49</span></div>`);
    expect(read(html, 'de').subscribe_save_price).toEqual({ amount: 8.54, currency: 'EUR' });
  });
});

describe('product pages without the usual title ids', () => {
  it('a 2010-12 device landing page: the h1.parseasinTitle heading is the title, the Kindle bullets are the bullets', () => {
    const html = page(`<ul id="kindle-feature-bullets-atf"><li>Over 20 million movies</li><li>Amazon Silk</li></ul>`,
      '<h1 class="parseasinTitle">\n Kindle Fire\n</h1><span>Wi-Fi, Full Color 7" Multi-Touch Display</span>');
    const f = read(html);
    expect(f.feature_bullets).toEqual(['Over 20 million movies', 'Amazon Silk']);
    expect(parseProductPage(html, mp('com'))).toMatchObject({ kind: 'product', fields: { title: 'Kindle Fire' } });
  });

  it('an Appstore app page: #mas-title, a free price, the "Sold by:" line, its availability, features and description', () => {
    const html = page(`<div id="actualPriceRow"><span id="actualPriceLabel">Price:</span><span id="actualPriceValue"><strong class="priceLarge"> Free Download </strong></span></div>
      <div id="mobileApplicationLegal_feature_div"><div class="a-section"><span class="a-color-secondary masrw-label">Sold by:</span><span>Amazon Digital Services, Inc.</span></div></div>
      <div id="mas-availability" class="a-section buying mas-availability">Available <span>instantly</span></div>
      <div id="mas-product-feature" class="a-section bucket"><h2>Product features</h2><div class="a-row masrw-content-row"><ul><li><span class="a-list-item">Three tumblers</span></li></ul></div></div>
      <div id="mas-product-description" class="a-section bucket"><h2>Product description</h2><div class="a-row masrw-content-row">Tap to hit the lock.<br><br>How many locks can you pick?</div></div>`,
    '<div id="mas-title" class="a-section"><div class="a-row"><span class="a-size-large a-text-bold">Pick a Lock</span></div></div>');
    const f = read(html);
    expect(f).toMatchObject({
      title: 'Pick a Lock', price: { amount: 0, currency: 'USD' }, prime: false,
      buy_box: { seller_name: 'Amazon Digital Services, Inc.', seller_id: null, ships_from: null, sold_by_amazon: true, fulfilled_by_amazon: false },
      availability: { status: 'in_stock', text: 'Available instantly', quantity: null },
      feature_bullets: ['Three tumblers'], description: 'Tap to hit the lock. How many locks can you pick?',
    });
  });
});

describe('details bullets', () => {
  it('a bold question link followed by only a question mark is not a pair', () => {
    const html = page(`<div id="detailBullets_feature_div"><ul>
      <li><b>Sprache:</b> Deutsch</li>
      <li> <br>&nbsp;<b><a href="/gp/feature.html?docId=1000601883">Ist der Verkauf dieses Produkts für Sie nicht akzeptabel</a></b>? </li></ul></div>`);
    expect(read(html, 'de').details).toEqual({ sprache: 'Deutsch' });
  });
});

describe('twister dimensions shown as dropdowns', () => {
  it('a dropdown dimension whose row has no id of its own keeps its page place and its prompt\'s selection', () => {
    const data = `<script>var dataToReturn = { "dimensionValuesDisplayData" : {"B01EM6DE6Y":["Men's 7.5-9/Women's 6-10","White/Pink"],"B01EM6DJRI":["Men's 9-12.5/Women's 10-12","White/Grey"]},
      "dimensions" : ["size_name","color_name"], "currentAsin" : "B01EM6DE6Y" };</script>`;
    const html = page(`${data}<div id="parameters.sectionId" class="variation-dropdown"><select id="native_dropdown_selected_size_name"><option value="-1">Select</option></select>
      <span id="dropdown_selected_size_name" class="a-button a-button-dropdown"><span class="a-button-inner"><span class="a-button-text"><span class="a-dropdown-prompt"> Men's 7.5-9/Women's 6-10 </span></span></span></span></div>
      <div id="variation_color_name"><span class="selection">White/Pink</span></div>`);
    const f = read(html);
    expect(f.variant).toBe("Men's 7.5-9/Women's 6-10 / White/Pink");
    expect(f.variants).toContainEqual({ name: "Men's 9-12.5/Women's 10-12 / White/Grey", asin: 'B01EM6DJRI' });
  });
});

describe('price of the 2012-14 radio buy box', () => {
  it('the checked section\'s header price, not a rental\'s', () => {
    const html = page(`<div id="rbb_section" class="rbb_section cBox"><div class="rbb_header"><span class="rentPrice">$12.00</span></div></div>
      <div id="bb_section" class="rbb_section cBox buyTopBox selected"><div id="rbb_bb_trigger" class="rbb_header"><a href="#" class="rbbHeaderLink">
      <span class="bb_title"><input name="selectedBuyBoxHeader" type="radio" class="bb_radio" checked="checked"> Buy New</span><span class="bb_price">
$35.25 </span></a></div></div>`);
    expect(read(html).price).toEqual({ amount: 35.25, currency: 'USD' });
  });
});
