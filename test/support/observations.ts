/**
 * Stored observations for tests: Products with every version 2 field filled with realistic values
 * (`withVersion2Fields`), and rows written through the observation repository from the flat shape
 * tests describe them in (`storeRows`).
 */
import type { PrismaClient } from '../../core/db/prisma.js';
import { insertObservation } from '../../core/observations.js';
import { OBSERVATION_FORMAT_VERSION, version1Fields, type Product } from '../../core/product.js';

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

/** An observation in the flat shape tests describe it (the columns of the pre-version-2 table). */
export interface FlatRow {
  asin: string;
  marketplace: string;
  observedAt: Date;
  status: string;
  url: string;
  title?: string | null;
  byline?: string[];
  variants?: Product['variants'];
  priceAmount?: string | null;
  priceCurrency?: string | null;
  bsr?: Product['bsr'];
  bsrRank?: number | null;
  rating?: string | null;
  ratingsCount?: number | null;
  details?: Record<string, string>;
  parserVersion: string;
  subscriptionId?: number | null;
}

/** The Product of a flat row (a rank without `bsr` becomes a BSR of category `Test`). */
export function productOfRow(r: FlatRow): Product {
  const rank = r.bsrRank ?? r.bsr?.rank ?? null;
  return {
    asin: r.asin, marketplace: r.marketplace, url: r.url, observed_at: r.observedAt.toISOString(), status: r.status as Product['status'],
    title: r.title ?? null, byline: r.byline ?? [], variant: null, variants: r.variants ?? [],
    price: r.priceAmount != null && r.priceCurrency ? { amount: Number(r.priceAmount), currency: r.priceCurrency } : null,
    bsr: r.bsr ?? (rank === null ? null : { rank, category: 'Test', subcategories: [] }),
    rating: r.rating == null ? null : Number(r.rating), ratings_count: r.ratingsCount ?? null, image_url: null, details: r.details ?? {},
    parser_version: r.parserVersion, ...version1Fields(),
  };
}

/** Stores flat rows through the observation repository, in order; returns their ids. */
export async function storeRows(prisma: PrismaClient, rows: FlatRow[]): Promise<bigint[]> {
  const ids: bigint[] = [];
  for (const row of rows) ids.push(await insertObservation(prisma, productOfRow(row), row.subscriptionId ?? undefined));
  return ids;
}
