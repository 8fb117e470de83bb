/**
 * Parser v1: turns one saved Amazon product page into a `PageParse` (product-page-contract.md).
 * Pure functions, no I/O. Field readers live in one file per field; language data lives in `locale.ts`.
 */
import type { Marketplace } from '../../core/marketplaces.js';
import type { PageParse, ProductFields } from '../../core/product.js';
import { readBsr } from './bsr.js';
import { readByline } from './byline.js';
import { readDetails } from './details.js';
import { createDom, releaseDom } from './dom.js';
import { readImage } from './image.js';
import { decidePageKind } from './page-kind.js';
import { stripScriptsAndStyles } from './prepare.js';
import { readPrice } from './price.js';
import { readRating, readRatingsCount } from './rating.js';
import { readFormatSwatches, readTwister, readTwisterData } from './variants.js';

export { decodePage } from './decode.js';

/** Version of the extraction; bump whenever any output can change. */
export const PARSER_VERSION = '1.0.0';

/** The ASIN the page itself shows (for the selected format swatch, whose link has none). */
function pageAsin(doc: Document, fallback: string | null): string | null {
  const input = doc.querySelector('input#ASIN, input[name="ASIN"], input[name="ASIN.0"]');
  const v = input?.getAttribute('value')?.trim().toUpperCase();
  if (v && /^[A-Z0-9]{10}$/.test(v)) return v;
  if (fallback) return fallback;
  const canon = doc.querySelector('link[rel="canonical"]')?.getAttribute('href') ?? '';
  return /\/dp\/([A-Z0-9]{10})/.exec(canon)?.[1] ?? null;
}

/**
 * Parses a product page. The page kind is decided first; fields are read only from product pages.
 * @param html the decoded page (see `decodePage`)
 * @param marketplace the marketplace the page was read from (currency and number formats)
 */
export function parseProductPage(html: string, marketplace: Marketplace): PageParse {
  const dom = createDom(stripScriptsAndStyles(html));
  try {
    const doc = dom.window.document;
    const kind = decidePageKind(doc);
    if (kind.kind === 'not_found') return { kind: 'not_found' };
    if (kind.kind !== 'product') return { kind: kind.kind, reason: kind.reason };
    const twisterData = readTwisterData(html);
    const sel = twisterData
      ? readTwister(doc, twisterData)
      : readFormatSwatches(doc, pageAsin(doc, null));
    const bsr = readBsr(doc);
    const fields: ProductFields = {
      status: bsr ? 'ok' : 'no_bsr',
      title: kind.title,
      byline: readByline(doc),
      variant: sel.variant,
      variants: sel.variants,
      price: readPrice(doc, marketplace),
      bsr,
      rating: readRating(doc),
      ratings_count: readRatingsCount(doc),
      image_url: readImage(doc),
      details: readDetails(doc),
    };
    return { kind: 'product', fields };
  } finally {
    releaseDom(dom);
  }
}
