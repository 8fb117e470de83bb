/**
 * Golden comparison over the shared saved pages (../shared/fixtures/pages, never copied here).
 * Hard assertions: page kind/status on every page; every field exact on English-language marketplaces;
 * zero wrong non-null price / bsr / rating / ratings_count anywhere. Other fields: a reported table.
 */
import { expect, it } from 'vitest';
import { describeNeeding, savedPages } from '../support/prerequisites.js';
import { FIELDS, expectedKind, havePages, readManifest, runPage, table, type PageResult } from '../../scripts/golden/compare-v1.js';

const ENGLISH = new Set(['com', 'uk', 'ca', 'in', 'au']);
const NEVER_WRONG = ['price', 'bsr', 'rating', 'ratings_count'] as const;

describeNeeding([savedPages], 'parser golden pages', () => {
  const results: PageResult[] = havePages ? readManifest().map((r) => runPage(r)) : [];

  it('prints the per-field x marketplace table', () => {
    console.log(table(results));
    expect(results.length).toBeGreaterThan(0);
  });

  it.each(results.map((r) => [r.row.file, r] as const))('%s: page kind and status', (_file, r) => {
    expect(r.parse.kind).toBe(expectedKind(r.row));
    if (r.parse.kind === 'product') expect(r.parse.fields.status).toBe(r.expected.status);
  });

  it.each(results.filter((r) => ENGLISH.has(r.row.marketplace.code)).map((r) => [r.row.file, r] as const))(
    '%s: every field exact (English marketplace)',
    (_file, r) => {
      if (r.parse.kind !== 'product') return;
      for (const f of FIELDS) {
        expect.soft(r.verdicts[f], `${f}: got ${JSON.stringify(r.parse.fields[f])}, want ${JSON.stringify(r.expected[f])}`).toBe('exact');
      }
    },
  );

  it('never a wrong non-null price, bsr, rating or ratings_count on any page', () => {
    const wrong = results.flatMap((r) =>
      NEVER_WRONG.filter((f) => r.verdicts[f] === 'wrong' && r.parse.kind === 'product' && r.parse.fields[f] !== null).map(
        (f) => `${r.row.file}:${f}`,
      ),
    );
    expect(wrong).toEqual([]);
  });
});
