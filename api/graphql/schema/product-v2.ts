/**
 * The version 2 fields of a Product (product-page-contract.md "Version 2 fields"), as typed
 * GraphQL fields beside the version 1 ones: the same values REST returns, camel-cased. Observations
 * stored before version 2 answer null / empty lists and `quality.version` 1.
 */
import {
  AVAILABILITY_STATUSES, MISSING_REASONS, type Availability, type BuyBox, type Coupon, type Delivery, type Product, type Quality, type RatingHistogram,
} from '../../../core/product.js';
import { builder, IN_MEMORY_LIST } from '../builder.js';
import { PriceRef, ProductRef } from './product.js';

const AvailabilityStatusRef = builder.enumType('AvailabilityStatus', {
  description: '`low_stock`: a number of units is shown; `back_order`: "Temporarily out of stock. Order now"; `unknown`: text present but none of the others.',
  values: AVAILABILITY_STATUSES,
});

const MissingReasonRef = builder.enumType('MissingReason', {
  description: 'Why an applicable field is null.',
  values: MISSING_REASONS,
});

const CouponRef = builder.objectRef<Coupon>('Coupon').implement({
  description: 'A coupon badge: `text` as shown; whichever of `percent` / `amount` the text states, the other null.',
  fields: (t) => ({
    text: t.exposeString('text'),
    percent: t.exposeFloat('percent', { nullable: true }),
    amount: t.field({ type: PriceRef, nullable: true, resolve: (c) => c.amount }),
  }),
});

const BuyBoxRef = builder.objectRef<BuyBox>('BuyBox').implement({
  description: 'The featured offer\'s merchant.',
  fields: (t) => ({
    sellerName: t.exposeString('seller_name', { nullable: true }),
    sellerId: t.exposeString('seller_id', { nullable: true, description: 'From the `seller=` parameter of a visible seller link only.' }),
    shipsFrom: t.exposeString('ships_from', { nullable: true }),
    soldByAmazon: t.exposeBoolean('sold_by_amazon', { nullable: true }),
    fulfilledByAmazon: t.exposeBoolean('fulfilled_by_amazon', { nullable: true }),
  }),
});

const AvailabilityRef = builder.objectRef<Availability>('Availability').implement({
  description: 'The stock line of the page.',
  fields: (t) => ({
    status: t.field({ type: AvailabilityStatusRef, resolve: (a) => a.status }),
    text: t.exposeString('text', { description: 'As shown.' }),
    quantity: t.exposeInt('quantity', { nullable: true, description: 'The number of "Only 3 left in stock".' }),
  }),
});

const DeliveryRef = builder.objectRef<Delivery>('Delivery').implement({
  description: 'Where the page delivers to, and the buy box\'s first delivery promise.',
  fields: (t) => ({
    location: t.exposeString('location', { nullable: true }),
    promise: t.exposeString('promise', { nullable: true }),
  }),
});

const RatingHistogramRef = builder.objectRef<RatingHistogram>('RatingHistogram').implement({
  description: 'Percent of ratings per star count, integers as shown.',
  fields: (t) => ({
    fiveStar: t.int({ resolve: (h) => h['5'] }),
    fourStar: t.int({ resolve: (h) => h['4'] }),
    threeStar: t.int({ resolve: (h) => h['3'] }),
    twoStar: t.int({ resolve: (h) => h['2'] }),
    oneStar: t.int({ resolve: (h) => h['1'] }),
  }),
});

const MissingFieldRef = builder.objectRef<Quality['missing'][number]>('MissingField').implement({
  description: 'An applicable field left null, and why.',
  fields: (t) => ({
    field: t.exposeString('field', { description: 'The REST field name (snake_case).' }),
    reason: t.field({ type: MissingReasonRef, resolve: (m) => m.reason }),
  }),
});

const QualityRef = builder.objectRef<Quality>('Quality').implement({
  description: 'The data-quality block: `version` is the observation format (1: stored before version 2, counts null).',
  fields: (t) => ({
    version: t.exposeInt('version'),
    fieldsRead: t.exposeInt('fields_read', { nullable: true }),
    fieldsApplicable: t.exposeInt('fields_applicable', { nullable: true }),
    missing: t.field({ type: [MissingFieldRef], complexity: IN_MEMORY_LIST, resolve: (q) => q.missing }),
  }),
});

builder.objectFields(ProductRef, (t) => ({
  listPrice: t.field({ type: PriceRef, nullable: true, resolve: (p: Product) => p.list_price }),
  subscribeSavePrice: t.field({ type: PriceRef, nullable: true, resolve: (p: Product) => p.subscribe_save_price }),
  coupon: t.field({ type: CouponRef, nullable: true, resolve: (p: Product) => p.coupon }),
  prime: t.exposeBoolean('prime', { nullable: true }),
  buyBox: t.field({ type: BuyBoxRef, nullable: true, resolve: (p: Product) => p.buy_box }),
  availability: t.field({ type: AvailabilityRef, nullable: true, resolve: (p: Product) => p.availability }),
  delivery: t.field({ type: DeliveryRef, nullable: true, resolve: (p: Product) => p.delivery }),
  featureBullets: t.exposeStringList('feature_bullets', { complexity: IN_MEMORY_LIST }),
  description: t.exposeString('description', { nullable: true }),
  images: t.exposeStringList('images', { complexity: IN_MEMORY_LIST }),
  categories: t.exposeStringList('categories', { complexity: IN_MEMORY_LIST, description: 'The breadcrumb, root first.' }),
  ratingHistogram: t.field({ type: RatingHistogramRef, nullable: true, resolve: (p: Product) => p.rating_histogram }),
  quality: t.field({ type: QualityRef, resolve: (p: Product) => p.quality }),
}));
