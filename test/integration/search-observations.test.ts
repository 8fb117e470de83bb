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
import { createAccount } from '../../api/admin/accounts.js';
import { createDb } from '../../core/db/db.js';
import { purgeExpiredData } from '../../core/retention.js';
import type { SearchItem, SearchResults } from '../../core/search.js';
import {
  findRecentSearch, latestSearch, normalizeKeyword, rankHistory, searchKeywordKey, searchResultsById, storeSearchObservation,
} from '../../core/search-observations.js';
import { storableText } from '../../core/storable-text.js';
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
    url: `https://www.amazon.de/s?k=${encodeURIComponent(storableText(keyword))}${page > 1 ? `&page=${page}` : ''}`,
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

    const count = async (table: string, where = 'true') =>
      (await app.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`))[0]!.n;

    it('reads a stored SearchResults back equal in every field, alone and by the batch', async () => {
      const first = read('Katzenfutter', new Date('2026-11-20T08:00:00.123Z'));
      const none = read('xqzv nothing', new Date('2026-11-20T08:00:01.000Z'), []);
      const ids = [await storeSearchObservation(app.db, first), await storeSearchObservation(app.db, none)];
      const back = await searchResultsById(app.db, [...ids, ids[0]!, 999_999_999n]);
      expect([...back.keys()].sort()).toEqual([...ids].sort());
      expect(back.get(ids[0]!)).toEqual(first);
      // Keys in contract order too: what the API serializes is byte for byte what was stored.
      expect(JSON.stringify(back.get(ids[0]!))).toBe(JSON.stringify(first));
      expect(back.get(ids[1]!)).toEqual(none);
      expect(await searchResultsById(app.db, [])).toEqual(new Map());
    });

    it('stores an unchanged repeated read as one row and no item, in another process too', async () => {
      const t0 = Date.parse('2026-11-21T00:00:00Z');
      await storeSearchObservation(app.db, read('Nassfutter', new Date(t0)));
      const items = await count('search_items');
      const observations = await count('search_observations');
      for (let i = 1; i <= 3; i++) await storeSearchObservation(app.db, read('Nassfutter', new Date(t0 + i * 3_600_000)));
      // A process that has not seen these items finds them by their hash.
      const other = createDb(app.dbUrl, 1);
      try {
        const id = await storeSearchObservation(other, read('Nassfutter', new Date(t0 + 4 * 3_600_000)));
        expect((await searchResultsById(other, [id])).get(id)).toEqual(read('Nassfutter', new Date(t0 + 4 * 3_600_000)));
      } finally {
        await other.close();
      }
      expect(await count('search_items')).toBe(items);
      expect(await count('search_observations')).toBe(observations + 4);
    });

    it('stores only the item contents that changed; a list whose items moved stores none', async () => {
      const t0 = Date.parse('2026-11-22T00:00:00Z');
      await storeSearchObservation(app.db, read('Trockenfutter', new Date(t0)));
      const items = await count('search_items');
      // Item 10 moved to the top, item 5 moved down: same contents, another order.
      const moved = [labelled.items[9]!, ...labelled.items.slice(0, 9), ...labelled.items.slice(10)];
      moved.splice(20, 0, ...moved.splice(4, 1));
      const movedRead = read('Trockenfutter', new Date(t0 + 3_600_000), moved);
      const movedId = await storeSearchObservation(app.db, movedRead);
      expect(await count('search_items')).toBe(items);
      const back = (await searchResultsById(app.db, [movedId])).get(movedId)!;
      expect(back).toEqual(movedRead);
      expect(back.items.map((i) => i.asin)).toEqual(moved.map((i) => i.asin));
      // Two items changed (a price, a delivery line): two contents stored.
      const changed = moved.map((item, i) => i === 3 ? { ...item, price: { amount: 9.99, currency: 'EUR' } } : i === 30 ? { ...item, delivery: 'FREE delivery Friday, 28 November' } : item);
      const changedRead = read('Trockenfutter', new Date(t0 + 7_200_000), changed);
      const changedId = await storeSearchObservation(app.db, changedRead);
      expect(await count('search_items')).toBe(items + 2);
      expect((await searchResultsById(app.db, [changedId])).get(changedId)).toEqual(changedRead);
    });

    it('finds the recent and the latest read by keyword whatever its case and spacing, honouring since and page', async () => {
      const t0 = Date.parse('2026-11-23T10:00:00Z');
      const older = await storeSearchObservation(app.db, read('Cat  Food', new Date(t0)));
      const newer = await storeSearchObservation(app.db, read('cat food', new Date(t0 + 30 * 60_000)));
      const page2 = await storeSearchObservation(app.db, read('CAT FOOD', new Date(t0 + 31 * 60_000), labelled.items.slice(0, 12), 2));
      const q = { keyword: ' Cat Food ', marketplace: 'de', page: 1 };
      const recent = await findRecentSearch(app.db, { ...q, since: new Date(t0 - 60_000) });
      expect(recent?.id).toBe(newer);
      expect(recent?.results).toEqual(read('cat food', new Date(t0 + 30 * 60_000)));
      expect((await findRecentSearch(app.db, { ...q, since: new Date(t0 + 30 * 60_000) }))?.id).toBe(newer);
      expect(await findRecentSearch(app.db, { ...q, since: new Date(t0 + 30 * 60_000 + 1) })).toBeNull();
      expect((await findRecentSearch(app.db, { ...q, page: 2, since: new Date(t0) }))?.id).toBe(page2);
      expect(await findRecentSearch(app.db, { ...q, marketplace: 'com', since: new Date(t0 - 60_000) })).toBeNull();
      expect((await latestSearch(app.db, { keyword: 'CAT FOOD', marketplace: 'de' }))?.id).toBe(newer);
      expect((await latestSearch(app.db, { keyword: 'cat food', marketplace: 'de', page: 2 }))?.results.items).toHaveLength(12);
      expect(await latestSearch(app.db, { keyword: 'cat food', marketplace: 'de', page: 3 })).toBeNull();
      expect(await latestSearch(app.db, { keyword: 'cat foods', marketplace: 'de' })).toBeNull();
      expect(older).toBeLessThan(newer);
    });

    it('answers rank history newest first, one point per read over its pages, null points where the ASIN was absent', async () => {
      const now = new Date('2026-11-30T12:00:00Z');
      const day = (n: number) => new Date(now.getTime() - n * DAY_MS);
      const page1 = labelled.items.slice(0, 30);
      const page2 = labelled.items.slice(30);
      const kitekat = 'B00C7SCAP6'; // page 1, position 5, organic 1
      const mjamjam = 'B07D4RV7PQ'; // sponsored at 18, organic at 55 (page 2: 25)
      // Day 1: two pages of one read (same instant). Day 2: page 1 only, Kitekat gone. Day 3: both
      // pages, Kitekat moved to page 2. Day 40: outside 30 days.
      const withoutKitekat = page1.filter((i) => i.asin !== kitekat);
      const reads: SearchResults[] = [
        read('Rank Keyword', day(1), page1), read('Rank Keyword', day(1), page2, 2),
        read('rank keyword', day(2), withoutKitekat),
        read('RANK KEYWORD', day(3), withoutKitekat), read('RANK KEYWORD', day(3), [page2[0]!, page2[1]!, { ...page1[4]!, sponsored: true }, ...page2.slice(2)], 2),
        read('rank keyword', day(40), page1),
        read('other keyword', day(1), page1),
      ];
      for (const r of reads) await storeSearchObservation(app.db, r);
      const kitekatHistory = await rankHistory(app.db, { keyword: 'rank   KEYWORD', marketplace: 'de', asin: kitekat, days: 30, now });
      expect(kitekatHistory).toEqual([
        { observed_at: day(1).toISOString(), page: 1, position: 5, organic_position: 1, sponsored: false },
        { observed_at: day(2).toISOString(), page: 1, position: null, organic_position: null, sponsored: null },
        { observed_at: day(3).toISOString(), page: 2, position: 3, organic_position: null, sponsored: true },
      ]);
      const mjamjamHistory = await rankHistory(app.db, { keyword: 'rank keyword', marketplace: 'de', asin: mjamjam.toLowerCase(), days: 30, now });
      expect(mjamjamHistory).toEqual([
        { observed_at: day(1).toISOString(), page: 1, position: 18, organic_position: null, sponsored: true },
        { observed_at: day(2).toISOString(), page: 1, position: 17, organic_position: null, sponsored: true },
        { observed_at: day(3).toISOString(), page: 1, position: 17, organic_position: null, sponsored: true },
      ]);
      // Only the organic slot on page 2 (the sponsored one dropped): organic position counts page 2's non-sponsored items.
      const organicOnly = labelled.items.filter((i) => !(i.asin === mjamjam && i.sponsored)).slice(30);
      await storeSearchObservation(app.db, read('rank keyword', day(0.5), organicOnly, 2));
      const expected = organicOnly.findIndex((i) => i.asin === mjamjam);
      const latest = (await rankHistory(app.db, { keyword: 'rank keyword', marketplace: 'de', asin: mjamjam, days: 1, now }))[0];
      expect(latest).toEqual({
        observed_at: day(0.5).toISOString(), page: 2, position: expected + 1,
        organic_position: organicOnly.slice(0, expected + 1).filter((i) => !i.sponsored).length, sponsored: false,
      });
      expect(await rankHistory(app.db, { keyword: 'rank keyword', marketplace: 'de', asin: kitekat, days: 365, now })).toHaveLength(5);
      expect(await rankHistory(app.db, { keyword: 'rank keyword', marketplace: 'com', asin: kitekat, days: 365, now })).toEqual([]);
      expect(await rankHistory(app.db, { keyword: 'never read', marketplace: 'de', asin: kitekat, days: 30, now })).toEqual([]);
    });

    it('stores hostile text without failing: unpaired surrogates and U+0000 become U+FFFD, quotes and long keywords stay', async () => {
      const at = new Date('2026-11-24T00:00:00Z');
      const lone = 'pads \uD800 x';
      const hostileItem = { ...labelled.items[5]!, title: 'Title \uDC00 with \u0000 NUL', badges: ['Best\uD83D'] };
      const id = await storeSearchObservation(app.db, { ...read(lone, at, [hostileItem]), results_text: `1-1 of 1 results for "${lone}"` });
      const back = (await searchResultsById(app.db, [id])).get(id)!;
      expect(back.keyword).toBe('pads \uFFFD x');
      expect(back.items[0]!.title).toBe('Title \uFFFD with \uFFFD NUL');
      expect(back.items[0]!.badges).toEqual(['Best\uFFFD']);
      expect((await findRecentSearch(app.db, { keyword: lone, marketplace: 'de', page: 1, since: at }))?.id).toBe(id);
      expect((await rankHistory(app.db, { keyword: lone, marketplace: 'de', asin: hostileItem.asin, days: 1, now: at }))[0]?.position).toBe(1);
      expect(await rankHistory(app.db, { keyword: lone, marketplace: 'de', asin: 'not an asin', days: 1, now: at })).toEqual([
        { observed_at: at.toISOString(), page: 1, position: null, organic_position: null, sponsored: null },
      ]);
      for (const keyword of [`'; DROP TABLE search_items; --`, 'x'.repeat(200), '🐈 Katze 😺', '\\"{}[]%_']) {
        const stored = read(keyword, at, labelled.items.slice(0, 3));
        const storedId = await storeSearchObservation(app.db, stored);
        expect((await searchResultsById(app.db, [storedId])).get(storedId)).toEqual(stored);
        expect((await latestSearch(app.db, { keyword: keyword.toUpperCase(), marketplace: 'de' }))?.id).toBe(storedId);
      }
      // A card whose data-asin is not an ASIN is stored and read back; no rank history matches it.
      const odd = { ...labelled.items[0]!, asin: 'ODD-ASIN' };
      const oddId = await storeSearchObservation(app.db, read('odd cards', at, [odd]));
      expect((await searchResultsById(app.db, [oddId])).get(oddId)!.items[0]!.asin).toBe('ODD-ASIN');
      expect((await app.prisma.searchObservation.findUniqueOrThrow({ where: { id: oddId } })).itemAsins).toEqual([-1n]);
      expect((await rankHistory(app.db, { keyword: 'odd cards', marketplace: 'de', asin: 'ODD-ASIN', days: 1, now: at }))[0]?.position).toBeNull();
    });

    it('keeps a delivery of a deleted subscription as a plain observation', async () => {
      const account = await createAccount(app.db, { login: `searcher-${database}`, email: 'searcher@example.com' });
      const subscription = await app.prisma.subscription.create({ data: { accountId: account.id, asin: 'B00C7SCAP6', marketplace: 'de', frequency: 'daily' } });
      const at = new Date('2026-11-25T00:00:00Z');
      const delivered = await storeSearchObservation(app.db, read('subscribed', at), subscription.id);
      const row = async (id: bigint) => (await app.prisma.searchObservation.findUniqueOrThrow({ where: { id } })).subscriptionId;
      expect(await row(delivered)).toBe(subscription.id);
      await app.prisma.subscription.delete({ where: { id: subscription.id } });
      expect(await row(delivered)).toBeNull();
      const late = await storeSearchObservation(app.db, read('subscribed', new Date(at.getTime() + 1_000)), subscription.id);
      expect(await row(late)).toBeNull();
    });

    it('OBSERVATION_RETENTION_DAYS deletes the search observations older than it; RETENTION_DAYS alone keeps them', async () => {
      const now = new Date('2026-12-01T00:00:00Z');
      const old = await storeSearchObservation(app.db, read('retained', new Date(now.getTime() - 100 * DAY_MS)));
      const kept = await storeSearchObservation(app.db, read('retained', new Date(now.getTime() - 80 * DAY_MS)));
      expect((await purgeExpiredData(app.db, { retentionDays: 1, now })).searchObservations).toBe(0);
      expect((await searchResultsById(app.db, [old, kept])).size).toBe(2);
      const before = await count('search_observations');
      const report = await purgeExpiredData(app.db, { retentionDays: 30, observationRetentionDays: 90, now, batchSize: 2 });
      expect([...(await searchResultsById(app.db, [old, kept])).keys()]).toEqual([kept]);
      expect(report.searchObservations).toBe(before - await count('search_observations'));
      expect(report.searchObservations).toBeGreaterThanOrEqual(1);
      expect((await count('search_observations', `observed_at < '${new Date(now.getTime() - 90 * DAY_MS).toISOString()}'`))).toBe(0);
    });

    // Relation sizes are PostgreSQL's own: PGlite's storage is the same format but not what production runs.
    if (database === 'postgres') it('costs at most 2 KB per unchanged repeated read, index entries included', async () => {
      const t0 = Date.parse('2026-10-01T00:00:00Z');
      const fifty = labelled.items.slice(0, 50);
      await storeSearchObservation(app.db, read('bytes per read', new Date(t0), fifty));
      const size = async () => (await app.prisma.$queryRawUnsafe<{ n: number }[]>(
        `SELECT (pg_total_relation_size('search_observations') + pg_total_relation_size('search_items'))::int AS n`,
      ))[0]!.n;
      const before = await size();
      const repeats = 400;
      for (let i = 1; i <= repeats; i++) await storeSearchObservation(app.db, read('bytes per read', new Date(t0 + i * 3_600_000), fifty));
      const perRead = (await size() - before) / repeats;
      const row = (await app.prisma.$queryRawUnsafe<{ n: number }[]>(
        `SELECT max(pg_column_size(s.*))::int AS n FROM search_observations s WHERE keyword_key = 'bytes per read'`,
      ))[0]!.n;
      expect(perRead).toBeLessThanOrEqual(2048);
      expect(row).toBeLessThanOrEqual(1400);
    });
  });
}

it('normalizes keywords as posted and as the identity of reuse and history', () => {
  expect(normalizeKeyword('  Running \t Shoes\n ')).toBe('Running Shoes');
  expect(searchKeywordKey('  Running \t Shoes\n ')).toBe('running shoes');
  expect(searchKeywordKey('KATZENFUTTER  Nassfutter')).toBe(searchKeywordKey('katzenfutter nassfutter'));
});
