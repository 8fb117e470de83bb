/**
 * POST /v1/retail/product/stats and GraphQL `product { stats series changes }` on known observation
 * sets, on PGlite and on the real PostgreSQL: min / max / avg / last with their times, windows by
 * days and by from / to, hour and day buckets holding the bucket's last value, empty windows,
 * prices in another currency, validation codes, charging like history (ledger exact), and the
 * same numbers from REST and GraphQL.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { storeRows } from '../support/observations.js';
import { apiClient, type ApiClient } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { describeNeeding, postgres } from '../support/prerequisites.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-01-10T00:00:00Z');
const at = (hours: number) => new Date(T0 + hours * HOUR).toISOString();
const A = 'B0STATS001';
const B = 'B0STATS002';

/** Observations of A: [hours after T0, price, currency, rank, status]. */
const SET_A: [number, number | null, string | null, number | null, string][] = [
  [0, 10, 'USD', 100, 'ok'],
  [1, 12, 'USD', 90, 'ok'],
  [2, 9, 'USD', null, 'no_bsr'],
  [26, 9, 'EUR', 80, 'ok'],
  [27, 11, 'USD', 120, 'ok'],
  [28, null, null, null, 'not_found'],
  [29, 9, 'USD', 120, 'ok'],
];

const postgresPrerequisite = await postgres();

for (const database of ['pglite', 'postgres'] as const) {
  const prerequisites = database === 'postgres' ? [postgresPrerequisite] : [];
  describeNeeding(prerequisites, `stats on ${database}`, () => {
    let app: TestApp;
    let seq = 0;
    const account = async (balance = 10) => {
      const n = ++seq;
      const created = await createAccount(app.db, { login: `stats${n}`, email: `stats${n}@example.com`, balance });
      return { ...created, rest: apiClient(app.url, { login: created.login, key: created.api_key }), gql: app.gql({ key: created.api_key }) };
    };
    let rest: ApiClient;
    let gql: ReturnType<TestApp['gql']>;
    let accountId: number;

    beforeAll(async () => {
      app = await startTestApp({ database });
      await storeRows(app.db, [
          ...SET_A.map(([h, price, currency, rank, status]) => ({
            asin: A, marketplace: 'com', observedAt: new Date(T0 + h * HOUR), status, url: `https://www.amazon.com/dp/${A}`,
            priceAmount: price === null ? null : String(price), priceCurrency: currency, bsrRank: rank, parserVersion: 'test',
          })),
          // B: relative to now, for `days` windows.
          ...[1, 40, 100, 400].map((daysAgo, i) => ({
            asin: B, marketplace: 'de', observedAt: new Date(Date.now() - daysAgo * 86_400_000), status: 'ok', url: `https://www.amazon.de/dp/${B}`,
            priceAmount: String(20 + i), priceCurrency: 'EUR', bsrRank: 1000 * (i + 1), parserVersion: 'test',
          })),
          // Another product and marketplace that must never leak into A's numbers.
          { asin: A, marketplace: 'de', observedAt: new Date(T0 + HOUR), status: 'ok', url: 'u', priceAmount: '1', priceCurrency: 'EUR', bsrRank: 1, parserVersion: 'test' },
        ],
      );
      const main = await account(100);
      rest = main.rest;
      gql = main.gql;
      accountId = main.id;
    }, 120_000);

    afterAll(async () => {
      await app?.close();
    });

    const post = async (elements: unknown[], client = rest) => (await client.post('/v1/retail/product/stats', elements)).body;
    const one = async (element: Record<string, unknown>) => {
      const body = await post([element]);
      expect(body.tasks[0].status_code, JSON.stringify(body.tasks[0])).toBe(20000);
      return body.tasks[0].result[0];
    };

    it('min / max / avg / last of price and rank with their times, one currency, every observation counted', async () => {
      const result = await one({ asin: A.toLowerCase(), marketplace: 'us', from: '2026-01-10', to: '2026-01-11' });
      expect(result).toMatchObject({
        asin: A, marketplace: 'com', from: '2026-01-10T00:00:00.000Z', to: '2026-01-12T00:00:00.000Z', observations: 7,
        // USD prices 10, 12, 9, 11, 9 (the EUR one is left out); 9 twice: min_at is the newer.
        price: { currency: 'USD', min: 9, max: 12, avg: 10.2, last: 9, min_at: at(29), max_at: at(1), last_at: at(29) },
        // Ranks 100, 90, 80, 120, 120: max_at is the newer 120.
        bsr: { min: 80, max: 120, avg: 102, last: 120, min_at: at(26), max_at: at(29), last_at: at(29) },
      });
      expect(result.points).toEqual(SET_A.map(([h, price, currency, rank]) => ({ at: at(h), price: currency === 'USD' ? price : null, bsr_rank: rank })));
    });

    it('buckets: one point per UTC day / hour holding the bucket\'s last observation, at the bucket start', async () => {
      const day = await one({ asin: A, marketplace: 'com', from: '2026-01-10', to: '2026-01-11', bucket: 'day' });
      expect(day.points).toEqual([
        { at: '2026-01-10T00:00:00.000Z', price: 9, bsr_rank: null },
        { at: '2026-01-11T00:00:00.000Z', price: 9, bsr_rank: 120 },
      ]);
      expect(day.observations).toBe(7);
      const hour = await one({ asin: A, marketplace: 'com', from: '2026-01-10T00:00:00Z', to: '2026-01-11T04:30:00+00:00', bucket: 'hour' });
      expect(hour.points.map((p: any) => p.at)).toEqual([0, 1, 2, 26, 27, 28].map(at));
      expect(hour.points.at(-1)).toEqual({ at: at(28), price: null, bsr_rank: null });
    });

    it('date-time bounds: from inclusive, to exclusive; an empty window; a window priced only in another currency', async () => {
      const narrow = await one({ asin: A, marketplace: 'com', from: at(1), to: at(2) });
      expect(narrow).toMatchObject({ observations: 1, price: { min: 12, max: 12, last: 12, currency: 'USD' }, bsr: { avg: 90 } });
      const empty = await one({ asin: A, marketplace: 'com', from: '2025-01-01', to: '2025-12-31' });
      expect(empty).toMatchObject({ observations: 0, price: null, bsr: null, points: [] });
      const eur = await one({ asin: A, marketplace: 'com', from: at(25), to: at(26.5) });
      expect(eur.price).toMatchObject({ currency: 'EUR', min: 9, max: 9, avg: 9, last: 9 });
      const unknown = await one({ asin: 'B0NOTHERE0', marketplace: 'com' });
      expect(unknown).toMatchObject({ observations: 0, price: null, bsr: null, points: [] });
    });

    it('days windows count back from now (default 90), or from `to`', async () => {
      const count = async (element: Record<string, unknown>) => (await one({ asin: B, marketplace: 'de', ...element })).observations;
      expect(await count({ days: 30 })).toBe(1);
      expect(await count({})).toBe(2);
      expect(await count({ days: 90 })).toBe(2);
      expect(await count({ days: 365 })).toBe(3);
      const recent = await one({ asin: B, marketplace: 'de', days: 30 });
      expect(Date.parse(recent.to) - Date.parse(recent.from)).toBe(30 * 86_400_000);
      const back = new Date(Date.now() - 30 * 86_400_000).toISOString();
      expect(await count({ days: 30, to: back })).toBe(1);
    });

    it('refuses bad elements with the spec codes, uncharged; charges valid ones like history (ledger exact)', async () => {
      const payer = await account(1);
      const before = await accountMoney(app.prisma, { id: payer.id });
      const body = await post([
        { asin: A, marketplace: 'com' },
        { asin: A, marketplace: 'com', days: 30, from: '2026-01-01' },
        { asin: A, marketplace: 'com', from: '2026-02-01', to: '2026-01-01' },
        { asin: A, marketplace: 'com', bucket: 'week' },
        { asin: A, marketplace: 'com', days: 0 },
        { asin: A, marketplace: 'com', from: '2026-13-01' },
        { asin: 'BAD', marketplace: 'com' },
        { asin: A, marketplace: 'zz' },
      ], payer.rest);
      expect(body.tasks.map((t: any) => [t.status_code, t.status_message])).toEqual([
        [20000, 'Ok.'], [40501, 'Invalid field: `days`.'], [40501, 'Invalid field: `from`.'], [40501, 'Invalid field: `bucket`.'],
        [40501, 'Invalid field: `days`.'], [40501, 'Invalid field: `from`.'], [40503, 'Invalid ASIN.'], [40502, 'Unknown marketplace.'],
      ]);
      expect(body.cost).toBe(0.0005);
      const after = await accountMoney(app.prisma, { id: payer.id });
      expect(Math.round((before.balance - after.balance) * 1e6)).toBe(500);
      expect(Math.round(after.ledgerSum * 1e6)).toBe(Math.round(after.balance * 1e6));
      expect(after.entries.at(-1)).toMatchObject({ kind: 'charge', amount: -0.0005 });
      // No valid element: HTTP 400 with the first code, nothing charged.
      const refused = await payer.rest.post('/v1/retail/product/stats', [{ asin: A, marketplace: 'com', days: 5000 }]);
      expect(refused.status).toBe(400);
      expect(refused.body.status_code).toBe(40501);
    });

    it('an unaffordable element answers 40200; none affordable is HTTP 402; nothing charged for them', async () => {
      const poor = await account(0.001);
      const body = await post(Array.from({ length: 3 }, () => ({ asin: A, marketplace: 'com', days: 30 })), poor.rest);
      expect(body.tasks.map((t: any) => t.status_code)).toEqual([20000, 20000, 40200]);
      const broke = await poor.rest.post('/v1/retail/product/stats', [{ asin: A, marketplace: 'com' }]);
      expect(broke.status).toBe(402);
      const money = await accountMoney(app.prisma, { id: poor.id });
      expect(money.balance).toBe(0);
      expect(Math.round(money.ledgerSum * 1e6)).toBe(0);
    });

    it('GraphQL gives the same numbers as REST, and the changes between consecutive observations', async () => {
      const window = { from: '2026-01-10', to: '2026-01-11' };
      const restDay = await one({ asin: A, marketplace: 'com', ...window, bucket: 'day' });
      const res = await gql(`query($w: StatsWindow) { product(asin: "${A}", marketplace: "com") {
        asin marketplace cost
        stats(window: $w) { from to observations price { currency min max avg last minAt maxAt lastAt } bsr { min max avg last minAt maxAt lastAt } }
        raw: series(window: $w) { currency points { at price bsrRank } }
        daily: series(window: $w, bucket: DAY) { bucket points { at price bsrRank } }
        changes(window: $w) { field observedAt previousObservedAt before after currency delta deltaPercent } } }`, { w: window });
      expect(res.body.errors).toBeUndefined();
      const p = res.body.data.product;
      expect(p).toMatchObject({ asin: A, marketplace: 'com', cost: 0.0005 });
      expect(p.stats).toEqual({
        from: restDay.from, to: restDay.to, observations: restDay.observations,
        price: { currency: 'USD', min: 9, max: 12, avg: 10.2, last: 9, minAt: restDay.price.min_at, maxAt: restDay.price.max_at, lastAt: restDay.price.last_at },
        bsr: { min: 80, max: 120, avg: 102, last: 120, minAt: restDay.bsr.min_at, maxAt: restDay.bsr.max_at, lastAt: restDay.bsr.last_at },
      });
      expect(p.daily.points).toEqual(restDay.points.map((x: any) => ({ at: x.at, price: x.price, bsrRank: x.bsr_rank })));
      expect(p.raw.currency).toBe('USD');
      expect(p.raw.points).toHaveLength(7);
      expect(p.changes.slice(0, 2)).toEqual([
        { field: 'PRICE', observedAt: at(1), previousObservedAt: at(0), before: 10, after: 12, currency: 'USD', delta: 2, deltaPercent: 20 },
        { field: 'BSR_RANK', observedAt: at(1), previousObservedAt: at(0), before: 100, after: 90, currency: null, delta: -10, deltaPercent: -10 },
      ]);
      // 9 USD → 9 EUR is a price change (currency), with no delta.
      expect(p.changes).toContainEqual({ field: 'PRICE', observedAt: at(26), previousObservedAt: at(2), before: 9, after: 9, currency: 'EUR', delta: null, deltaPercent: null });
      expect(p.changes.filter((c: any) => c.field === 'BSR_RANK').map((c: any) => [c.before, c.after])).toEqual([[100, 90], [90, null], [null, 80], [80, 120], [120, null], [null, 120]]);
      const money = await accountMoney(app.prisma, { id: accountId });
      expect(Math.round(money.ledgerSum * 1e6)).toBe(Math.round(money.balance * 1e6));
    });

    it('GraphQL: a bad window refuses the product field before it is charged; unaffordable fields answer 40200', async () => {
      const poor = await account(0.001);
      const before = await accountMoney(app.prisma, { id: poor.id });
      const bad = await poor.gql(`{ product(asin: "${A}", marketplace: "com") { cost stats(window: { days: 30, from: "2026-01-01" }) { observations } } }`);
      expect(bad.body.errors[0]).toMatchObject({ message: 'Invalid field: `days`.', extensions: { code: 40501 } });
      expect((await accountMoney(app.prisma, { id: poor.id })).entries).toHaveLength(before.entries.length);
      const three = await poor.gql(`{ a: product(asin: "${A}", marketplace: "com") { cost } b: product(asin: "${B}", marketplace: "de") { cost } c: product(asin: "${A}", marketplace: "com") { cost } }`);
      expect(three.body.data).toEqual({ a: { cost: 0.0005 }, b: { cost: 0.0005 }, c: null });
      expect(three.body.errors).toEqual([expect.objectContaining({ path: ['c'], extensions: { code: 40200 } })]);
      const money = await accountMoney(app.prisma, { id: poor.id });
      expect(money.balance).toBe(0);
      expect(money.entries.filter((e) => e.kind === 'charge').map((e) => e.amount)).toEqual([-0.0005, -0.0005]);
      expect(Math.round(money.ledgerSum * 1e6)).toBe(0);
    });
  });
}
