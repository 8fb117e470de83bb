/**
 * What the benchmarks read: the replay folder standing in for the marketplaces (the shared saved
 * pages beside the repository, else the synthetic pages of test/fixtures/replay) and its product
 * pages, and a Product shaped like a real page's for benchmarks that store observations directly.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MARKETPLACES } from '../core/marketplaces.js';
import { OBSERVATION_FORMAT_VERSION, version1Fields, type Product } from '../core/product.js';
import { loadManifest } from '../replay/manifest.js';

export const repoRoot = fileURLToPath(new URL('../', import.meta.url));
export const sharedPagesDir = path.resolve(repoRoot, '../shared/fixtures/pages');
export const syntheticPagesDir = path.join(repoRoot, 'test/fixtures/replay');
export const sharedSearchPagesDir = path.resolve(repoRoot, '../shared/fixtures/search');

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

/** A saved search results page the replay server answers at `/<domain>/s?k=<keyword>`. */
export interface ReplaySearch {
  /** The keyword of its manifest row, as the replay matches it (case ignored). */
  keyword: string;
  /** Marketplace code (`com`, `uk`, `br`, ...). */
  marketplace: string;
  /** Manifest suffix of the marketplace (`com`, `co.uk`, `com.br`, ...). */
  suffix: string;
  file: string;
  filePath: string;
  bytes: number;
  /** `approx_year` of the row (0 when unknown). */
  year: number;
}

/**
 * A keyword typed as a customer types it: the saved search rows also note searches made without
 * one (`(no keyword) s?i=...`) or by a storefront link (`... s?i=merchant-items&me=...`), which the
 * replay answers at no `/s?k=` a search task asks for.
 */
const isPlainKeyword = (keyword: string): boolean => !keyword.startsWith('(no keyword)') && !keyword.includes('s?');

/** The results pages (kind `search`, page 1, a plain keyword) of the search replay folder `dir`. */
export async function replaySearches(dir = sharedSearchPagesDir): Promise<ReplaySearch[]> {
  const manifest = await loadManifest(dir);
  const out: ReplaySearch[] = [];
  for (const page of manifest.searches.values()) {
    if (page.kind !== 'search' || page.search?.page !== 1 || !isPlainKeyword(page.search.keyword)) continue;
    const marketplace = MARKETPLACES.find((m) => m.domain === page.domain);
    if (!marketplace) continue;
    out.push({
      keyword: page.search.keyword, marketplace: marketplace.code, suffix: page.domain.slice('www.amazon.'.length),
      file: page.file, filePath: page.filePath, bytes: fs.statSync(page.filePath).size, year: page.year,
    });
  }
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

/**
 * The keyword under which a combined replay folder serves a saved search page in round `round`:
 * round 0 is the saved keyword, round n the keyword and ` r<n>`. Distinct keywords make every
 * round a fresh read: a search task whose page was read in the last 60 minutes (the contract's
 * reuse window, keyed by keyword with case ignored) answers from that read.
 */
export function roundKeyword(keyword: string, round: number): string {
  return round === 0 ? keyword : `${keyword} r${round}`;
}

/**
 * A temporary replay folder serving both the product pages of {@link replayDir} and the search
 * pages of {@link replaySearches} (symlinks, one MANIFEST.tsv with the union of the columns: file,
 * marketplace, asin, kind, keyword, page, approx_year); each search page answers `searchRounds`
 * keywords ({@link roundKeyword} of rounds 0 .. searchRounds - 1). Returns the folder; the caller removes it.
 * @throws Error when a product and a search page share a file name
 */
export async function combinedReplayDir(searchRounds: number): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-bench-replay-'));
  const rows = ['file\tmarketplace\tasin\tkind\tkeyword\tpage\tapprox_year'];
  const link = (filePath: string, file: string) => {
    const target = path.join(dir, file);
    if (fs.existsSync(target)) throw new Error(`${file}: a product page and a search page share the name`);
    fs.symlinkSync(filePath, target);
  };
  for (const page of (await loadManifest(replayDir())).pages.values()) {
    link(page.filePath, page.file);
    rows.push([page.file, page.domain.slice('www.amazon.'.length), page.asin, page.kind, '', '', page.year || ''].join('\t'));
  }
  for (const search of await replaySearches()) {
    link(search.filePath, search.file);
    for (let round = 0; round < searchRounds; round++) rows.push([search.file, search.suffix, '', 'search', roundKeyword(search.keyword, round), 1, search.year || ''].join('\t'));
  }
  fs.writeFileSync(path.join(dir, 'MANIFEST.tsv'), `${rows.join('\n')}\n`);
  return dir;
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
