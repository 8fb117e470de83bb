/** `quality`: which applicable fields were read, and why each applicable field left null is missing (product-page-contract.md). */
import { OBSERVATION_FORMAT_VERSION, type MissingReason, type ProductFields, type Quality } from '../../core/product.js';

/** The page-derived fields the quality block accounts for, in Product order (`status` is the page kind, not a read). */
export const QUALITY_FIELDS = [
  'title', 'byline', 'variant', 'variants', 'price', 'bsr', 'rating', 'ratings_count', 'image_url', 'details',
  'list_price', 'subscribe_save_price', 'coupon', 'prime', 'buy_box', 'availability', 'delivery',
  'feature_bullets', 'description', 'images', 'categories', 'rating_histogram',
] as const satisfies readonly (keyof ProductFields)[];

/** Fields that belong to the featured offer: missing for that reason when the page shows none. */
const OFFER_FIELDS: ReadonlySet<string> = new Set(['price', 'list_price', 'subscribe_save_price', 'coupon', 'prime', 'buy_box']);

/** What the readers know beyond the values, for the reasons. */
export interface QualityFacts {
  /** The page shows a featured offer (a price to pay or its merchant). */
  hasOffer: boolean;
  /** The page shows a price to pay that was not read with confidence (`unreadable`) or is in another currency. */
  price: 'read' | 'absent' | 'unreadable' | 'other_currency';
}

const isEmpty = (v: unknown): boolean =>
  v === null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);

/**
 * The quality block of a product page. Every field of `QUALITY_FIELDS` is applicable on a product page,
 * except `variant` and `variants` on a page without a variation selector or format swatches. A null or
 * empty applicable field is listed in `missing` with one reason: the price's own reading when it was shown
 * but not read; `out_of_stock` for the offer's fields of an unavailable product; `no_featured_offer` for
 * them when the page shows no featured offer; else `not_on_page`.
 */
export function qualityOf(fields: Omit<ProductFields, 'quality'>, facts: QualityFacts): Quality {
  const hasSelector = fields.variant !== null || fields.variants.length > 0;
  const applicable = QUALITY_FIELDS.filter((f) => hasSelector || (f !== 'variant' && f !== 'variants'));
  const outOfStock = fields.availability?.status === 'out_of_stock';
  const missing: Quality['missing'] = [];
  for (const f of applicable) {
    if (!isEmpty(fields[f])) continue;
    let reason: MissingReason = 'not_on_page';
    if (f === 'price' && (facts.price === 'unreadable' || facts.price === 'other_currency')) reason = facts.price;
    else if (OFFER_FIELDS.has(f) && outOfStock) reason = 'out_of_stock';
    else if (OFFER_FIELDS.has(f) && !facts.hasOffer) reason = 'no_featured_offer';
    missing.push({ field: f, reason });
  }
  return { version: OBSERVATION_FORMAT_VERSION, fields_read: applicable.length - missing.length, fields_applicable: applicable.length, missing };
}

/** The quality block of a not-found page: no field is applicable. */
export function notFoundQuality(): Quality {
  return { version: OBSERVATION_FORMAT_VERSION, fields_read: 0, fields_applicable: 0, missing: [] };
}
