/**
 * What the benchmarks read: the replay folder standing in for the marketplaces (the shared saved
 * pages beside the repository, else the synthetic pages of test/fixtures/replay) and its product
 * pages, and a Product shaped like a real page's for benchmarks that store observations directly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MARKETPLACES } from '../core/marketplaces.js';
import { version1Fields, type Product } from '../core/product.js';
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
