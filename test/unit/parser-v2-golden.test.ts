/**
 * Version 2 fields against the golden labels (test/golden/v2, pages from ../shared/fixtures/pages).
 * Fails when fewer than 99% of the (page, field) pairs are exact, or when any non-null number
 * (list_price, subscribe_save_price, coupon.amount, availability.quantity, rating_histogram) differs
 * from its label. Pages that are not an observation must not parse as products.
 */
import { expect, it } from 'vitest';
import { describeNeeding, savedPages } from '../support/prerequisites.js';
import { exactRate, report, runAll, wrongNumbers, type V2Result } from '../../scripts/golden/compare-v2.js';

describeNeeding([savedPages], 'parser version 2 fields against the golden labels', () => {
  const results: V2Result[] = savedPages.missing === null ? runAll() : [];

  it('prints the per-field table and the overall exact rate', () => {
    console.log(report(results));
    expect(results.length).toBeGreaterThan(0);
  });

  it('at least 99% of the (page, field) pairs are exact', () => {
    const { exact, total } = exactRate(results);
    expect(total).toBeGreaterThan(0);
    expect(exact / total, `${exact} / ${total} exact`).toBeGreaterThanOrEqual(0.99);
  });

  it('no non-null number differs from its label', () => {
    expect(wrongNumbers(results)).toEqual([]);
  });

  it('pages that are not an observation do not parse as products', () => {
    const wrong = results.filter((r) => r.label.fields === null && r.parse.kind === 'product').map((r) => r.label.page);
    expect(wrong).toEqual([]);
  });
});
