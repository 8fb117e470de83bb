/**
 * Version 2 offer readers on small synthetic pages of the layouts and wordings the development pages
 * showed beyond the newest buy box (older and localized buy boxes: delivery, Prime, merchant, stock,
 * Subscribe & Save, the radio buy box's price); each page is read by the fragment pass and by the
 * whole-document path, which must agree (test/support/synthetic-product.ts).
 */
import { describe, expect, it } from 'vitest';
import { readBoth as read, syntheticPage as page } from '../support/synthetic-product.js';

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

describe('price of the 2012-14 radio buy box', () => {
  it('the checked section\'s header price, not a rental\'s', () => {
    const html = page(`<div id="rbb_section" class="rbb_section cBox"><div class="rbb_header"><span class="rentPrice">$12.00</span></div></div>
      <div id="bb_section" class="rbb_section cBox buyTopBox selected"><div id="rbb_bb_trigger" class="rbb_header"><a href="#" class="rbbHeaderLink">
      <span class="bb_title"><input name="selectedBuyBoxHeader" type="radio" class="bb_radio" checked="checked"> Buy New</span><span class="bb_price">
$35.25 </span></a></div></div>`);
    expect(read(html).price).toEqual({ amount: 35.25, currency: 'USD' });
  });
});
