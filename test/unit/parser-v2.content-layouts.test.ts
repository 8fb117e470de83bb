/**
 * Readers of older and unusual product layouts on small synthetic pages (histogram tooltips, book
 * descriptions, gallery scripts, bylines and formats, titles, details bullets, dropdown twisters);
 * each page is read by the fragment pass and by the whole-document path, which must agree
 * (test/support/synthetic-product.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseProductPage } from '../../worker/parser/index.js';
import { mp, readBoth as read, syntheticPage as page } from '../support/synthetic-product.js';

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
