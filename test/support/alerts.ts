/**
 * What the change-alert tests share: a Product with chosen fields (version 2, so availability, buy
 * box and content are known), and a monitoring run storing it for a subscription exactly as the
 * read activity does (core/monitoring-runs.ts: reserve, then store, which judges the alert rules).
 * Until the version 2 parser reads availability, buy box, bullets and images from pages, these
 * stored observations are how those rule kinds are driven.
 */
import { expect } from 'vitest';
import type { Db } from '../../core/db/db.js';
import { startMonitoringRun, storeMonitoringObservation } from '../../core/monitoring-runs.js';
import { version1Fields, type Product } from '../../core/product.js';

let runs = 0;
let clock = Date.UTC(2026, 5, 1);

/** A `com` Product of `asin` read one minute after the previous one; `over` replaces fields. */
export function productWith(asin: string, over: Partial<Product> = {}): Product {
  clock += 60_000;
  return {
    asin, marketplace: 'com', url: `https://www.amazon.com/dp/${asin}`, observed_at: new Date(clock).toISOString(), status: 'ok',
    title: 'Kettle', byline: [], variant: null, variants: [], price: null, bsr: null, rating: null, ratings_count: null, image_url: null,
    details: {}, parser_version: 'test', ...version1Fields(),
    feature_bullets: ['1.7 l'], images: ['https://m.media-amazon.com/images/I/k1.jpg'],
    quality: { version: 2, fields_read: null, fields_applicable: null, missing: [] },
    ...over,
  };
}

/** Stores `product` for the subscription as a paid monitoring run does; returns the change events to deliver. */
export async function observe(db: Db, subscriptionId: number, product: Product) {
  const runKey = `test:${subscriptionId}:${++runs}:${process.pid}`;
  expect(await startMonitoringRun(db, { subscriptionId, runKey, reserve: true })).toBe('reserved');
  return storeMonitoringObservation(db, { subscriptionId, runKey, product });
}

/** The observations that drive one rule kind: trigger, the same state (no repeat), re-arm, trigger again. */
export const RULE_SCRIPTS: Record<string, { rule: { type: string; value?: number }; steps: { over: Partial<Product>; fires: boolean }[] }> = {
  price_below: {
    rule: { type: 'price_below', value: 20 },
    steps: [
      { over: { price: { amount: 25, currency: 'USD' } }, fires: false },
      { over: { price: { amount: 19.5, currency: 'USD' } }, fires: true },
      { over: { price: { amount: 18, currency: 'USD' } }, fires: false },
      { over: { price: { amount: 22, currency: 'USD' } }, fires: false },
      { over: { price: { amount: 19, currency: 'USD' } }, fires: true },
    ],
  },
  price_drop_percent: {
    rule: { type: 'price_drop_percent', value: 10 },
    steps: [
      { over: { price: { amount: 100, currency: 'USD' } }, fires: false },
      { over: { price: { amount: 85, currency: 'USD' } }, fires: true },
      { over: { price: { amount: 70, currency: 'USD' } }, fires: false },
      { over: { price: { amount: 70, currency: 'USD' } }, fires: false },
      { over: { price: { amount: 60, currency: 'USD' } }, fires: true },
    ],
  },
  availability_change: {
    rule: { type: 'availability_change' },
    steps: [
      { over: { availability: { status: 'in_stock', text: 'In Stock', quantity: null } }, fires: false },
      { over: { availability: { status: 'out_of_stock', text: 'Currently unavailable.', quantity: null } }, fires: true },
      { over: { availability: { status: 'out_of_stock', text: 'Currently unavailable.', quantity: null } }, fires: false },
      { over: { availability: null }, fires: false },
      { over: { availability: { status: 'low_stock', text: 'Only 2 left in stock.', quantity: 2 } }, fires: true },
    ],
  },
  buy_box_change: {
    rule: { type: 'buy_box_change' },
    steps: [
      { over: { buy_box: { seller_name: 'Amazon.com', seller_id: null, ships_from: 'Amazon.com', sold_by_amazon: true, fulfilled_by_amazon: true } }, fires: false },
      { over: { buy_box: { seller_name: 'Kettle Shop', seller_id: 'A1KETTLE', ships_from: 'Amazon.com', sold_by_amazon: false, fulfilled_by_amazon: true } }, fires: true },
      { over: { buy_box: { seller_name: 'Kettle Shop', seller_id: 'A1KETTLE', ships_from: 'Amazon.com', sold_by_amazon: false, fulfilled_by_amazon: true } }, fires: false },
      { over: { buy_box: null }, fires: false },
      { over: { buy_box: { seller_name: 'Amazon.com', seller_id: null, ships_from: 'Amazon.com', sold_by_amazon: true, fulfilled_by_amazon: true } }, fires: true },
    ],
  },
  bsr_below: {
    rule: { type: 'bsr_below', value: 1000 },
    steps: [
      { over: { bsr: { rank: 1500, category: 'Kitchen', subcategories: [] } }, fires: false },
      { over: { bsr: { rank: 900, category: 'Kitchen', subcategories: [] } }, fires: true },
      { over: { bsr: { rank: 800, category: 'Kitchen', subcategories: [] } }, fires: false },
      { over: { bsr: { rank: 1200, category: 'Kitchen', subcategories: [] } }, fires: false },
      { over: { bsr: { rank: 950, category: 'Kitchen', subcategories: [] } }, fires: true },
    ],
  },
  bsr_change_percent: {
    rule: { type: 'bsr_change_percent', value: 50 },
    steps: [
      { over: { bsr: { rank: 1000, category: 'Kitchen', subcategories: [] } }, fires: false },
      { over: { bsr: { rank: 2000, category: 'Kitchen', subcategories: [] } }, fires: true },
      { over: { bsr: { rank: 4000, category: 'Kitchen', subcategories: [] } }, fires: false },
      { over: { bsr: { rank: 4100, category: 'Kitchen', subcategories: [] } }, fires: false },
      { over: { bsr: { rank: 1500, category: 'Kitchen', subcategories: [] } }, fires: true },
    ],
  },
  content_change: {
    rule: { type: 'content_change' },
    steps: [
      { over: {}, fires: false },
      { over: { title: 'Kettle, 1.7 l, steel' }, fires: true },
      { over: { title: 'Kettle,  1.7 l, steel ' }, fires: false },
      { over: { title: null, feature_bullets: [], images: [] }, fires: false },
      { over: { title: 'Kettle, 1.7 l, steel', images: ['https://m.media-amazon.com/images/I/k2.jpg'] }, fires: true },
    ],
  },
};
