/**
 * GraphQL `observedProducts` on PGlite (startTestApp): per ASIN and marketplace the newest
 * observation the caller holds (a completed, unexpired task's Product or a subscription's latest
 * delivery), newest first; searched by ASIN or title; never another account's reads, failed or
 * expired tasks, nor a newer observation the caller was not given; its argument refusals.
 */
import { storeRows } from '../support/observations.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { gqlClient, type GqlClient } from '../support/graphql.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const HOUR = 3_600_000;
const QUERY = 'query($search: String, $first: Int) { observedProducts(search: $search, first: $first) { asin marketplace title observedAt } }';

let app: TestApp;
let a: GqlClient;
let b: GqlClient;
let seq = 0;

async function observation(asin: string, title: string, hoursAgo: number, subscriptionId?: number): Promise<bigint> {
  const [id] = await storeRows(app.db, [{ asin, marketplace: 'com', observedAt: new Date(Date.now() - hoursAgo * HOUR), status: 'ok', url: `https://www.amazon.com/dp/${asin}`, title, parserVersion: 'test', subscriptionId }]);
  return id!;
}

async function task(accountId: number, asin: string, observationId: bigint | null, hoursAgo: number, extra: { statusCode?: number; expired?: boolean } = {}) {
  const n = ++seq;
  await app.prisma.task.create({
    data: {
      id: `02020000-0000-4000-8000-${String(n).padStart(12, '0')}`, accountId, endpoint: 'task_post', asin, marketplace: 'com', data: {},
      state: extra.statusCode && extra.statusCode !== 20000 ? 'failed' : 'completed', statusCode: extra.statusCode ?? 20000, statusMessage: 'Ok.',
      observationId, completedAt: new Date(Date.now() - hoursAgo * HOUR), expiresAt: new Date(Date.now() + (extra.expired ? -1 : 1) * 24 * HOUR),
    },
  });
}

beforeAll(async () => {
  app = await startTestApp({ database: 'pglite' });
  const yoga = app.yoga();
  const alice = await createAccount(app.db, { login: 'observer-a', email: 'a@example.com', balance: 1 });
  const bob = await createAccount(app.db, { login: 'observer-b', email: 'b@example.com', balance: 1 });
  a = gqlClient(yoga, { key: alice.api_key });
  b = gqlClient(yoga, { key: bob.api_key });
  // Alice read B0OBSERV01 twice (3 h and 1 h ago); Bob read it since (not Alice's).
  await task(alice.id, 'B0OBSERV01', await observation('B0OBSERV01', 'Blue Kettle 100% steel', 3), 3);
  await task(alice.id, 'B0OBSERV01', await observation('B0OBSERV01', 'Blue Kettle, second read', 1), 1);
  await task(bob.id, 'B0OBSERV01', await observation('B0OBSERV01', 'Blue Kettle, Bob\'s read', 0.5), 0.5);
  // Alice's subscription delivered B0OBSERV02 2 h ago.
  const sub = await app.prisma.subscription.create({ data: { accountId: alice.id, asin: 'B0OBSERV02', marketplace: 'com', frequency: 'daily' } });
  const delivered = await observation('B0OBSERV02', 'Red Teapot', 2, sub.id);
  await app.prisma.subscription.update({ where: { id: sub.id }, data: { latestObservationId: delivered } });
  // Neither a failed task nor an expired one lists its product.
  await task(alice.id, 'B0OBSERV03', null, 1, { statusCode: 40402 });
  await task(alice.id, 'B0OBSERV04', await observation('B0OBSERV04', 'Expired Mug', 5), 5, { expired: true });
});

afterAll(async () => {
  await app?.close();
});

describe('observedProducts', () => {
  it('lists the newest observation the caller holds of each product, newest first', async () => {
    const res = await a(QUERY);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.observedProducts.map((p: any) => [p.asin, p.title])).toEqual([
      ['B0OBSERV01', 'Blue Kettle, second read'],
      ['B0OBSERV02', 'Red Teapot'],
    ]);
    const other = await b(QUERY);
    expect(other.body.data.observedProducts.map((p: any) => p.title)).toEqual(['Blue Kettle, Bob\'s read']);
  });

  it('searches the ASIN or the title, case-insensitively; % and _ match themselves; first limits', async () => {
    const titles = async (search: string, first?: number) => (await a(QUERY, { search, first })).body.data.observedProducts.map((p: any) => p.asin);
    expect(await titles('teaPOT')).toEqual(['B0OBSERV02']);
    expect(await titles('b0observ01')).toEqual(['B0OBSERV01']);
    expect(await titles('%')).toEqual([]);
    expect(await titles('mug')).toEqual([]);
    expect(await titles('observ', 1)).toEqual(['B0OBSERV01']);
  });

  it('refuses first outside 1..100 and a search over 200 characters (40501 naming the argument), and an anonymous caller (40100)', async () => {
    for (const first of [0, 101]) {
      const res = await a(QUERY, { first });
      expect([res.body.errors[0].extensions.code, res.body.errors[0].message]).toEqual([40501, 'Invalid field: `first`.']);
    }
    const long = await a(QUERY, { search: 'x'.repeat(201) });
    expect([long.body.errors[0].extensions.code, long.body.errors[0].message]).toEqual([40501, 'Invalid field: `search`.']);
    const anonymous = await gqlClient(app.yoga())(QUERY);
    expect(anonymous.body.errors[0].extensions.code).toBe(40100);
  });
});
