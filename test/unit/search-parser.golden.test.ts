/**
 * The search parser against the reconciled golden labels (test/golden/search; pages from
 * ../shared/fixtures/search): for every page the
 * status, result count and every item, field by field in SEARCH_ITEM_FIELDS order. A mismatch names
 * page, position, field, expected and got. Prices, positions and sponsored flags have a test of their
 * own across all pages: none may be wrong.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { expect, it } from 'vitest';
import { SEARCH_ITEM_FIELDS, type SearchPageParse } from '../../core/search.js';
import { decodePage } from '../../worker/parser/index.js';
import { parseSearchPage } from '../../worker/parser/search/index.js';
import { searchLabelsDir, searchPages } from '../../scripts/golden/search-corpus.js';
import { describeNeeding, savedSearchPages } from '../support/prerequisites.js';

interface Label {
  status: string;
  total_results: number | null;
  results_text: string | null;
  items: Record<string, unknown>[];
}

/** Every difference between a parse and its label, one line each. */
function differences(file: string, got: SearchPageParse, label: Label): string[] {
  if (got.kind !== 'search') return [`${file}: parsed as ${got.kind} (${got.reason}), labelled ${label.status}`];
  const out: string[] = [];
  for (const f of ['status', 'total_results', 'results_text'] as const) {
    if (!isDeepStrictEqual(got.fields[f], label[f])) out.push(`${file} ${f}: expected ${JSON.stringify(label[f])}, got ${JSON.stringify(got.fields[f])}`);
  }
  const n = Math.max(label.items.length, got.fields.items.length);
  for (let i = 0; i < n; i++) {
    const exp = label.items[i];
    const item = got.fields.items[i] as unknown as Record<string, unknown> | undefined;
    for (const f of SEARCH_ITEM_FIELDS) {
      if (!isDeepStrictEqual(item?.[f], exp?.[f])) out.push(`${file} position ${i + 1} ${f}: expected ${JSON.stringify(exp?.[f])}, got ${JSON.stringify(item?.[f])}`);
    }
  }
  return out;
}

describeNeeding([savedSearchPages], 'search parser against the labelled search pages', () => {
  const dir = searchLabelsDir();
  const pages = searchPages().filter((p) => existsSync(path.join(dir, p.file.replace(/\.html$/, '.json'))));
  const results = pages.map((p) => {
    const label = JSON.parse(readFileSync(path.join(dir, p.file.replace(/\.html$/, '.json')), 'utf8')) as Label;
    return { file: p.file, diffs: differences(p.file, parseSearchPage(decodePage(readFileSync(p.path)), p.marketplace), label) };
  });

  it('labels every saved search page', () => {
    expect(pages.length).toBe(searchPages().length);
  });

  it('no wrong price, position, organic position, sponsored flag or ASIN on any page', () => {
    const hard = /position \d+ (position|organic_position|sponsored|asin|price):/;
    expect(results.flatMap((r) => r.diffs.filter((d) => hard.test(d) || / status:/.test(d) || /parsed as/.test(d)))).toEqual([]);
  });

  it.each(results.map((r) => [r.file, r] as const))('%s: every field as labelled', (_file, r) => {
    expect(r.diffs).toEqual([]);
  });
});
