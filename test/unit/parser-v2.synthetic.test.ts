/**
 * Version 2 readers on small synthetic pages built here: the never-guess cases of the numbers
 * (quantity, coupon amount, histogram), the featured offer's scope, and the quality block.
 */
import { describe, expect, it } from 'vitest';
import { OBSERVATION_FORMAT_VERSION } from '../../core/product.js';
import { notFoundQuality } from '../../worker/parser/index.js';
import { availabilityStatus } from '../../worker/parser/stock.js';
import { readFragments as read, readWhole, syntheticPage } from '../support/synthetic-product.js';

const page = (body: string): string => syntheticPage(body);

const offer = `
  <div id="corePriceDisplay_desktop_feature_div"><span class="a-price priceToPay"><span class="a-offscreen">$17.99</span></span>
    <span class="a-price a-text-price basisPrice" data-a-strike="true"><span class="a-offscreen">$24.99</span></span></div>
  <div id="promoPriceBlockMessage_feature_div"><label id="couponText123">Apply $2.00 coupon <a href="#">Terms</a></label></div>
  <div id="buybox"><div id="availability"><span>Only 3 left in stock - order soon.</span></div>
    <div id="tabular-buybox"><div class="tabular-buybox-container">
      <div class="tabular-buybox-label"><span>Ships from</span></div><div class="tabular-buybox-text"><span>Amazon</span></div>
      <div class="tabular-buybox-label"><span>Sold by</span></div><div class="tabular-buybox-text"><span><a id="sellerProfileTriggerId" href="/gp/help/seller/at-a-glance.html?seller=A1B2C3D4E5F6G7">Acme Store</a></span></div>
    </div></div>
    <div id="mir-layout-DELIVERY_BLOCK"><div id="mir-layout-DELIVERY_BLOCK-slot-PRIMARY_DELIVERY_MESSAGE_LARGE">FREE delivery <b>Tuesday, June 3</b>. <a href="#">Details</a></div></div>
  </div>
  <div id="contextualIngressPtLabel_deliveryShortLine"><span>Deliver to&nbsp;</span><span>Toronto M5V</span></div>`;

describe('a page with a featured offer', () => {
  const f = read(page(offer));
  it('price block: list price struck, coupon amount, no Subscribe & Save', () => {
    expect(f.price).toEqual({ amount: 17.99, currency: 'USD' });
    expect(f.list_price).toEqual({ amount: 24.99, currency: 'USD' });
    expect(f.coupon).toEqual({ text: 'Apply $2.00 coupon', percent: null, amount: { amount: 2, currency: 'USD' } });
    expect(f.subscribe_save_price).toBeNull();
  });
  it('buy box: seller, visible seller id, ships from Amazon', () => {
    expect(f.buy_box).toEqual({ seller_name: 'Acme Store', seller_id: 'A1B2C3D4E5F6G7', ships_from: 'Amazon', sold_by_amazon: false, fulfilled_by_amazon: true });
  });
  it('availability: low stock with its quantity; delivery: place and first promise without the link', () => {
    expect(f.availability).toEqual({ status: 'low_stock', text: 'Only 3 left in stock - order soon.', quantity: 3 });
    expect(f.delivery).toEqual({ location: 'Toronto M5V', promise: 'FREE delivery Tuesday, June 3' });
  });
  it('prime: false when the offer shows no Prime signal', () => expect(f.prime).toBe(false));
  it('quality: version 2, every missing field with a reason', () => {
    expect(f.quality.version).toBe(OBSERVATION_FORMAT_VERSION);
    expect(f.quality.fields_applicable).toBe(20);
    expect(f.quality.fields_read).toBe(20 - f.quality.missing.length);
    expect(f.quality.missing).toContainEqual({ field: 'subscribe_save_price', reason: 'not_on_page' });
    expect(f.quality.missing.map((m) => m.field)).not.toContain('price');
  });
});

describe('Prime signals shown as text of the price block', () => {
  const cases: [string, string][] = [
    ['a "Prime Member Price" label in the core price block', `
      <div id="corePriceDisplay_desktop_feature_div"><div class="a-section"><span class="a-size-small">Prime Member Price</span></div>
        <span class="a-price priceToPay"><span class="a-offscreen">$17.99</span></span></div>`],
    ['the label split over elements and entities', `
      <div id="apex_desktop"><span class="a-price apexPriceToPay"><span class="a-offscreen">$9.50</span></span>
        <div><b>Prime</b>&nbsp;<i>member</i> price</div></div>`],
    ['a legacy price table\'s shipping note', `
      <table id="price"><tr><td><span id="priceblock_ourprice">$12.00</span> <b>FREE Shipping for Prime members</b></td></tr></table>`],
  ];
  it.each(cases)('%s: prime true, on the fragment document as on the whole page', (_name, body) => {
    const html = page(body);
    expect(read(html).prime).toBe(true);
    expect(read(html)).toEqual(readWhole(html));
  });
});

describe('the featured offer only', () => {
  it('a used row beside the new one is never read', () => {
    const f = read(page(`
      <div id="newAccordionRow_0"><div id="availability"></div></div>
      <div id="usedAccordionRow"><div id="availability">Only 1 left in stock</div><div id="merchant-info">Sold by Amazon Warehouse and Fulfilled by Amazon.</div></div>`));
    expect(f.availability).toBeNull();
    expect(f.buy_box).toBeNull();
    expect(f.prime).toBeNull();
    expect(f.quality.missing).toContainEqual({ field: 'buy_box', reason: 'no_featured_offer' });
  });
  it('an unavailable product: offer fields missing as out of stock', () => {
    const f = read(page('<div id="availability">Currently unavailable. We don\'t know when or if this item will be back in stock.</div>'));
    expect(f.availability?.status).toBe('out_of_stock');
    expect(f.quality.missing).toContainEqual({ field: 'price', reason: 'out_of_stock' });
  });
});

describe('never a guessed number', () => {
  it('a histogram with a row that does not read is null', () => {
    const row = (star: number, pct: string): string =>
      `<tr class="a-histogram-row"><td><a href="/product-reviews/X?filterByStar=${['', 'one', 'two', 'three', 'four', 'five'][star]}_star">${star} star</a></td><td class="a-text-right">${pct}</td></tr>`;
    const base = `<div id="averageCustomerReviews"><span id="acrPopover" title="4.5 out of 5 stars"></span></div>`;
    const full = read(page(`${base}<table id="histogramTable">${row(5, '70%')}${row(4, '20%')}${row(3, '5%')}${row(2, '3%')}${row(1, '2%')}</table>`));
    expect(full.rating_histogram).toEqual({ '5': 70, '4': 20, '3': 5, '2': 3, '1': 2 });
    const broken = read(page(`${base}<table id="histogramTable">${row(5, '70%')}${row(4, '20%')}${row(3, 'n/a')}${row(2, '3%')}${row(1, '2%')}</table>`));
    expect(broken.rating_histogram).toBeNull();
  });
  it('no histogram without a rating, even with 0% rows drawn', () => {
    const rows = [5, 4, 3, 2, 1].map((s) => `<tr class="a-histogram-row"><td>${s} star</td><td>0%</td></tr>`).join('');
    expect(read(page(`<table id="histogramTable">${rows}</table>`)).rating_histogram).toBeNull();
  });
  it('availability statuses and quantities in several languages', () => {
    expect(availabilityStatus('Nur noch 2 auf Lager (mehr ist unterwegs).')).toEqual({ status: 'low_stock', quantity: 2 });
    expect(availabilityStatus('Sólo queda(n) 3 en stock.')).toEqual({ status: 'low_stock', quantity: 3 });
    expect(availabilityStatus('Temporarily out of stock. Order now and we\'ll deliver when available.')).toEqual({ status: 'back_order', quantity: null });
    expect(availabilityStatus('Em estoque')).toEqual({ status: 'in_stock', quantity: null });
    expect(availabilityStatus('This item cannot be shipped to your selected delivery location.')).toEqual({ status: 'unknown', quantity: null });
  });
});

describe('a not-found page', () => {
  it('has a version 2 quality block with nothing applicable', () => {
    expect(notFoundQuality()).toEqual({ version: OBSERVATION_FORMAT_VERSION, fields_read: 0, fields_applicable: 0, missing: [] });
  });
});
