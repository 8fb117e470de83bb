/**
 * Parser: turns one saved Amazon product page into a `PageParse` (product-page-contract.md).
 * Pure functions, no I/O. Field readers live in one file per field; language data lives in `locale.ts`.
 * Each reader module declares the parts of the page it reads (`*_PARTS`); product pages are read from a
 * jsdom document of only those parts (`fragments.ts`), built and released by `dom.ts`.
 */
import type { Marketplace } from '../../core/marketplaces.js';
import type { PageParse, ProductFields } from '../../core/product.js';
import { BSR_PARTS, readBsr } from './bsr.js';
import { BUY_BOX_PARTS, readBuyBox } from './buy-box.js';
import { BYLINE_PARTS, readByline } from './byline.js';
import { CONTENT_PARTS, readCategories, readDescription, readFeatureBullets } from './content.js';
import { DETAILS_PARTS, readDetails } from './details.js';
import { withDom } from './dom.js';
import { extractFragments } from './fragments.js';
import type { PageParts } from './page-parts.js';
import { readGallery } from './gallery.js';
import { HISTOGRAM_PARTS, readHistogram } from './histogram.js';
import { IMAGE_PARTS, readImage } from './image.js';
import { OFFER_PRICE_PARTS, readCoupon, readListPrice, readPrime, readSubscribeSavePrice } from './offer-price.js';
import { TITLE_PARTS, decidePageKind, readTitle } from './page-kind.js';
import { stripScriptsAndStyles } from './prepare.js';
import { PRICE_PARTS, readPriceState } from './price.js';
import { qualityOf } from './quality.js';
import { query } from './query.js';
import { RATING_PARTS, readRating, readRatingsCount } from './rating.js';
import { STOCK_PARTS, readAvailability, readDelivery } from './stock.js';
import { VARIANT_PARTS, readFormatSwatches, readTwister, readTwisterData } from './variants.js';

export { decodePage } from './decode.js';
export { notFoundQuality } from './quality.js';
export { PARSER_VERSION } from './version.js';

/** The parts every field reader reads (title and details are passed apart: they decide what is kept). */
const READER_PARTS: readonly PageParts[] = [
  BYLINE_PARTS, PRICE_PARTS, BSR_PARTS, IMAGE_PARTS, RATING_PARTS, VARIANT_PARTS,
  OFFER_PRICE_PARTS, BUY_BOX_PARTS, STOCK_PARTS, CONTENT_PARTS, HISTOGRAM_PARTS,
];

/** The ASIN the page itself shows (for the selected format swatch, whose link has none). */
function pageAsin(doc: Document, fallback: string | null): string | null {
  const input = query(doc, ['input#ASIN', 'input[name="ASIN"]', 'input[name="ASIN.0"]']);
  const v = input?.getAttribute('value')?.trim().toUpperCase();
  if (v && /^[A-Z0-9]{10}$/.test(v)) return v;
  if (fallback) return fallback;
  const canon = query(doc, ['link[rel="canonical"]'])?.getAttribute('href') ?? '';
  return /\/dp\/([A-Z0-9]{10})/.exec(canon)?.[1] ?? null;
}

/** Reads every field of a product page (its title already read). */
function readFields(doc: Document, html: string, title: string, marketplace: Marketplace): PageParse {
  const twisterData = readTwisterData(html);
  const asin = pageAsin(doc, null);
  const sel = twisterData ? readTwister(doc, twisterData) : readFormatSwatches(doc, asin);
  const bsr = readBsr(doc);
  const { price, state: priceState } = readPriceState(doc, marketplace);
  const rating = readRating(doc, asin);
  const imageUrl = readImage(doc);
  const buyBox = readBuyBox(doc);
  const hasOffer = price !== null || buyBox !== null;
  const delivery = readDelivery(doc, hasOffer);
  const base = {
    status: bsr ? 'ok' : 'no_bsr',
    title,
    byline: readByline(doc),
    variant: sel.variant,
    variants: sel.variants,
    price,
    bsr,
    rating,
    ratings_count: readRatingsCount(doc, asin),
    image_url: imageUrl,
    details: readDetails(doc),
    list_price: hasOffer ? readListPrice(doc, marketplace) : null,
    subscribe_save_price: hasOffer ? readSubscribeSavePrice(doc, marketplace) : null,
    coupon: hasOffer ? readCoupon(doc, marketplace) : null,
    prime: readPrime(doc, hasOffer, delivery?.promise ?? null),
    buy_box: buyBox,
    availability: readAvailability(doc),
    delivery,
    feature_bullets: readFeatureBullets(doc),
    description: readDescription(doc),
    images: readGallery(html, imageUrl) ?? [],
    categories: readCategories(doc),
    rating_histogram: readHistogram(doc, rating),
  } satisfies Omit<ProductFields, 'quality'>;
  const fields: ProductFields = { ...base, quality: qualityOf(base, { hasOffer, price: priceState }) };
  return { kind: 'product', fields };
}

/** What the readers need beside the document: the raw page (the twister JSON is read from it) and its marketplace. */
export interface PageContext {
  /** The decoded page (see `decodePage`). */
  html: string;
  /** The marketplace the page was read from (currency and number formats). */
  marketplace: Marketplace;
}

/**
 * Reads a page from a jsdom document of the whole page: the page kind first, then every field of a
 * product page. `parseProductPage` returns the same from the page's fragment document; this is the
 * path for pages the fragment pass does not serve, and the reference the fragment path is tested against.
 * @param doc a document of the whole page (scripts are not run; their bodies are never read)
 * @param page the raw page and its marketplace
 */
export function parseProductFromDocument(doc: Document, page: PageContext): PageParse {
  const kind = decidePageKind(doc);
  if (kind.kind === 'not_found') return { kind: 'not_found' };
  if (kind.kind !== 'product') return { kind: kind.kind, reason: kind.reason };
  return readFields(doc, page.html, kind.title, page.marketplace);
}

/** The whole page in jsdom (pages without a title, and markup the fragment pass does not follow). */
function parseWholePage(html: string, marketplace: Marketplace): PageParse {
  return withDom(stripScriptsAndStyles(html), (doc) => parseProductFromDocument(doc, { html, marketplace }));
}

/**
 * Parses a product page. The page kind is decided first; fields are read only from product pages.
 * Product pages are read from their fragment document (`fragments.ts`): the parts the readers look at,
 * cut out with one tokenizer pass. Pages without a title (not found, robot check, error, degraded) are
 * decided on the whole page, as is any page whose markup the fragment pass does not follow.
 * @param html the decoded page (see `decodePage`)
 * @param marketplace the marketplace the page was read from (currency and number formats)
 */
export function parseProductPage(html: string, marketplace: Marketplace): PageParse {
  const frag = extractFragments(html, READER_PARTS, TITLE_PARTS, DETAILS_PARTS);
  if (!frag.hasTitle || !frag.exact) return parseWholePage(html, marketplace);
  const parsed = withDom(frag.html, (doc) => {
    const title = readTitle(doc);
    // Every title element is in the fragment document: no title here means none in the page.
    return title ? readFields(doc, html, title, marketplace) : null;
  });
  return parsed ?? parseWholePage(html, marketplace);
}
