/**
 * Every field, v1 and v2, over the whole labelled development corpus (scripts/golden/dev-corpus.ts:
 * ../shared/fixtures/pages and pages-more): at least 99 % of each field's values exact. The wrong
 * non-null numbers are asserted by parser.golden.test.ts (price, BSR, rating, count) and
 * parser-v2-golden.test.ts (list price, S&S price, coupon, quantity, histogram).
 */
import { expect, it } from 'vitest';
import { havePages, readManifest } from '../../scripts/golden/dev-corpus.js';
import { ALL_FIELDS, scorePages, showTally, tally, type PageScore } from '../../scripts/golden/score.js';
import { parseProductPage } from '../../worker/parser/index.js';
import { describeNeeding, savedPages } from '../support/prerequisites.js';

/** The share of a field's values that must be exact. */
const PER_FIELD_TARGET = 0.99;

describeNeeding([savedPages], 'parser: every field over the labelled development corpus', () => {
  const pages: PageScore[] = havePages ? scorePages(readManifest(), parseProductPage) : [];

  it.each(ALL_FIELDS.map((f) => [f] as const))('%s: at least 99 % of the labelled values exact', (field) => {
    const t = tally(pages, field);
    expect(t.total).toBeGreaterThan(0);
    const misses = pages.filter((p) => p.exact[field] === false).map((p) => p.row.file);
    expect(t.exact / t.total, `${showTally(t)}; not exact on ${misses.join(', ')}`).toBeGreaterThanOrEqual(PER_FIELD_TARGET);
  });
});
