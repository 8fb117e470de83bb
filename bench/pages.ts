/**
 * What the benchmarks read: the replay folder standing in for the marketplaces (the shared saved
 * pages beside the repository, else the synthetic pages of test/fixtures/replay) and its product
 * pages, and a Product shaped like a real page's for benchmarks that store observations directly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MARKETPLACES } from '../core/marketplaces.js';
import { OBSERVATION_FORMAT_VERSION, version1Fields, type Product } from '../core/product.js';
import { loadManifest } from '../replay/manifest.js';

export const repoRoot = fileURLToPath(new URL('../', import.meta.url));
export const sharedPagesDir = path.resolve(repoRoot, '../shared/fixtures/pages');
export const syntheticPagesDir = path.join(repoRoot, 'test/fixtures/replay');

/** The replay folder the benchmarks read: the shared saved pages, else the synthetic ones. */
export function replayDir(): string {
  return fs.existsSync(path.join(sharedPagesDir, 'MANIFEST.tsv')) ? sharedPagesDir : syntheticPagesDir;
}

/** A readable product page of the replay folder (served with HTTP 200, parsed as a product). */
export interface ReplayProduct {
  asin: string;
  /** Marketplace code (`com`, `de`, ...). */
  marketplace: string;
  file: string;
  bytes: number;
}

/** The product pages (kinds product, no_bsr, unavailable) of `dir` that the replay server serves. */
export async function replayProducts(dir: string): Promise<ReplayProduct[]> {
  const manifest = await loadManifest(dir);
  const out: ReplayProduct[] = [];
  for (const page of manifest.pages.values()) {
    if (!['product', 'no_bsr', 'unavailable'].includes(page.kind)) continue;
    const marketplace = MARKETPLACES.find((m) => m.domain === page.domain);
    if (!marketplace) continue;
    out.push({ asin: page.asin, marketplace: marketplace.code, file: page.file, bytes: fs.statSync(page.filePath).size });
  }
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

/** A Product shaped like a real page's (6 variants, 2 sub-ranks, 8 details), observed now. */
export function sampleProduct(asin: string, marketplace = 'com', observedAt = new Date()): Product {
  return {
    asin, marketplace, url: `https://www.amazon.com/dp/${asin}`, observed_at: observedAt.toISOString(), status: 'ok',
    title: 'Palarn Women Tops, Sexy O-Neck Flora Printed Sleeveless Vest Chiffon Tops T-Shirt Blouse',
    byline: ['Palarn'], variant: 'X-Large',
    variants: ['Small', 'Medium', 'Large', 'X-Large', 'XX-Large', 'XXX-Large'].map((name, i) => ({ name, asin: `B07CL39Z${i}Q` })),
    price: { amount: 12.27, currency: 'USD' },
    bsr: { rank: 409707, category: 'Clothing, Shoes & Jewelry', subcategories: [{ rank: 15457, category: 'Tops, Tees & Blouses' }, { rank: 210076, category: 'Shops' }] },
    rating: 4.3, ratings_count: 1287,
    image_url: 'https://images-na.ssl-images-amazon.com/images/I/71WSLCM%2BGYL._UL1071_.jpg',
    details: {
      shipping_weight: '1.6 ounces (View shipping rates and policies)', asin, date_first_listed_on_amazon: 'March 28, 2018',
      item_model_number: 'PLN-2018-041', department: 'Womens', manufacturer: 'Palarn', product_dimensions: '10 x 8 x 0.5 inches', is_discontinued_by_manufacturer: 'No',
    },
    parser_version: 'bench-1', ...version1Fields(),
  };
}

/**
 * `product` with every version 2 field set to a realistic value (unicode text without NUL, the
 * product's currency); `seed` varies the volatile ones (prices, coupon, stock, histogram).
 */
export function withVersion2Fields(product: Product, seed = 0): Product {
  const currency = product.price?.currency ?? 'USD';
  const base = product.price?.amount ?? 19.99;
  return {
    ...product,
    list_price: { amount: Math.round((base * 1.25 + seed) * 100) / 100, currency },
    subscribe_save_price: { amount: Math.round(base * 0.95 * 100) / 100, currency },
    coupon: seed % 2 === 0
      ? { text: 'Apply 10% coupon', percent: 10, amount: null }
      : { text: `Save ${currency === 'EUR' ? '2,00 €' : '$2.00'} with coupon`, percent: null, amount: { amount: 2, currency } },
    prime: seed % 3 !== 2,
    buy_box: { seller_name: 'Amazon EU S.à r.l. – Ünïcödé “Händler”', seller_id: 'A3JWKAKR8XB7XF', ships_from: 'Amazon', sold_by_amazon: true, fulfilled_by_amazon: true },
    availability: seed % 4 === 3
      ? { status: 'low_stock', text: `Only ${seed % 9 + 1} left in stock - order soon.`, quantity: seed % 9 + 1 }
      : { status: 'in_stock', text: 'In Stock', quantity: null },
    delivery: { location: 'Palisades Park 07024', promise: 'FREE delivery Monday, December 1 on orders shipped by Amazon over $35' },
    feature_bullets: ['Langlebig – aus recyceltem Material 🌱', 'Größe: 30 × 20 cm; Gewicht 250 g', 'Lieferumfang: 1 Stück, 日本語の説明'],
    description: 'Ein ausführlicher Text mit Umlauten (äöüß), Anführungszeichen „so“ und Emoji ✨.\nZweite Zeile — mit Gedankenstrich.',
    images: [product.image_url ?? 'https://m.media-amazon.com/images/I/71abc.jpg', 'https://m.media-amazon.com/images/I/81def.jpg'],
    categories: ['Küche, Haushalt & Wohnen', 'Kochen & Backen', 'Backformen'],
    rating_histogram: { '5': 61 + (seed % 5), '4': 20, '3': 9, '2': 4, '1': 6 - (seed % 5) },
    quality: {
      version: OBSERVATION_FORMAT_VERSION, fields_read: 27, fields_applicable: 29,
      missing: [{ field: 'subscribe_save_price', reason: 'not_on_page' }, { field: 'seller_id', reason: 'unreadable' }],
    },
  };
}
