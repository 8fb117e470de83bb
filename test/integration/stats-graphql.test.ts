/**
 * GraphQL `product { stats series changes }` with many products in one operation (aliases), on
 * PGlite: the SQL statements of the operation do not grow with the number of products (charges,
 * statistics and series, changes, keeping the charges' reservations: one statement each, batched
 * by DataLoader), every product is
 * charged one history element with its ledger entry, and each product gets its own numbers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { countingDb, startTestApp, type TestApp } from '../support/test-app.js';
import { storeRows } from '../support/observations.js';
import { gqlClient, type GqlClient } from '../support/graphql.js';
import { accountMoney } from '../support/ledger.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-02-01T00:00:00Z');
const asinOf = (i: number) => `B0GQL${String(i).padStart(5, '0')}`;

let app: TestApp;
let counting: ReturnType<typeof countingDb>;
let gql: GqlClient;
let accountId: number;

beforeAll(async () => {
  app = await startTestApp({ database: 'pglite' });
  // 25 products, 48 hourly observations each: product i costs 10 + i, its rank drops by one an hour.
  await storeRows(app.db, Array.from({ length: 25 }, (_, i) => Array.from({ length: 48 }, (_, h) => ({
      asin: asinOf(i), marketplace: 'com', observedAt: new Date(T0 + h * HOUR), status: 'ok', url: 'u',
      priceAmount: String(10 + i + (h % 2)), priceCurrency: 'USD', bsrRank: 500 - h, parserVersion: 'test',
    }))).flat(),
  );
  const created = await createAccount(app.db, { login: 'dash', email: 'dash@example.com', balance: 10 });
  accountId = created.id;
  counting = countingDb(app.dbUrl);
  gql = gqlClient(app.yoga({ db: counting }), { key: created.api_key });
}, 120_000);

afterAll(async () => {
  await counting?.close();
  await app?.close();
});

/** A dashboard operation over `n` products: two stats windows, a daily series and the changes of each. */
function dashboard(n: number): string {
  const fields = Array.from({ length: n }, (_, i) => `p${i}: product(asin: "${asinOf(i)}", marketplace: "com") {
    asin cost
    week: stats(window: $w) { observations price { min max avg } bsr { min max last } }
    all: stats(window: { from: "2026-01-01", to: "2026-02-28" }) { observations }
    series(window: $w, bucket: DAY) { currency points { at price bsrRank } }
    changes(window: $w) { field before after } }`);
  return `query($w: StatsWindow) { ${fields.join('\n')} }`;
}

describe('GraphQL product analytics: statements constant in the number of products (no N+1)', () => {
  const measured: Record<number, number> = {};

  afterAll(() => {
    console.info('GraphQL product analytics, SQL statements per operation by products:', JSON.stringify(measured));
  });

  it('1, 4 and 12 products (the breadth limit allows about 15 of these) run the same number of statements, and each product gets its own numbers', async () => {
    for (const n of [1, 4, 12]) {
      counting.statements.length = 0;
      const res = await gql(dashboard(n), { w: { from: '2026-02-01', to: '2026-02-01' } });
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      // The usage meter's once-a-second write may land in any operation: it is not the operation's.
      measured[n] = counting.statements.filter((s) => !/usage_counters/.test(s)).length;
      for (let i = 0; i < n; i++) {
        const p = res.body.data[`p${i}`];
        expect(p.asin).toBe(asinOf(i));
        expect(p.week).toEqual({ observations: 24, price: { min: 10 + i, max: 11 + i, avg: 10.5 + i }, bsr: { min: 477, max: 500, last: 477 } });
        expect(p.all.observations).toBe(48);
        expect(p.series.points).toEqual([{ at: '2026-02-01T00:00:00.000Z', price: 11 + i, bsrRank: 477 }]);
        expect(p.changes.filter((c: any) => c.field === 'PRICE')).toHaveLength(23);
        expect(p.changes.filter((c: any) => c.field === 'BSR_RANK')).toHaveLength(23);
      }
    }
    expect(measured[12]).toBe(measured[1]);
    expect(measured[4]).toBe(measured[1]);
    // Authentication and rate limits, the charge, statistics with series, changes, the charges'
    // reservations kept once the answer is made (and usage writes at most).
    expect(counting.statements.filter((s) => /product-stats|observations o/.test(s) || /ledger_entries/.test(s)).length).toBeLessThanOrEqual(4);
  });

  it('charged one history element per product field, each with its ledger entry', async () => {
    const before = await accountMoney(app.prisma, { id: accountId });
    const res = await gql(dashboard(5), { w: { days: 7 } });
    expect(res.body.errors).toBeUndefined();
    const after = await accountMoney(app.prisma, { id: accountId });
    expect(Math.round((before.balance - after.balance) * 1e6)).toBe(5 * 500);
    expect(after.entries.slice(before.entries.length).map((e) => [e.kind, e.amount])).toEqual(Array.from({ length: 5 }, () => ['charge', -0.0005]));
    expect(Math.round(after.ledgerSum * 1e6)).toBe(Math.round(after.balance * 1e6));
  });
});
