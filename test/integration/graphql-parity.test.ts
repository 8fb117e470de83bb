/**
 * GraphQL mutations (and the charged productHistory) against their REST endpoints: the same input
 * on two accounts with equal balances gives the same codes (request-level: REST status_code vs
 * GraphQL extensions.code; task-level: REST task status_code vs result statusCode) and the same
 * charges (balance deltas and reported cost). Over HTTP, against buildApp on PGlite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { storeObservation } from '../../core/observations.js';
import { version1Fields, type Product } from '../../core/product.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { authorization, gqlClient, type GqlClient } from '../support/graphql.js';
import { apiClient, type ApiClient } from '../support/http.js';

let app: TestApp;
let seq = 0;

/** What both sides answered, normalised: request code, task codes, reported cost, balance delta. */
interface Outcome {
  code: number;
  tasks: number[];
  cost: number;
  charged: number;
}

interface Pair {
  rest: ApiClient;
  gql: GqlClient;
  restId: number;
  gqlId: number;
  restKey: string;
  gqlKey: string;
}

async function balanceOf(id: number): Promise<number> {
  return Number((await app.prisma.account.findUniqueOrThrow({ where: { id } })).balance);
}

/** Two accounts with the same plan and balance: one used over REST, one over GraphQL. */
async function pair(balance: number, plan = 'standard'): Promise<Pair> {
  const n = ++seq;
  const r = await createAccount(app.db, { login: `rest${n}`, email: `rest${n}@example.com`, balance, plan });
  const g = await createAccount(app.db, { login: `gql${n}`, email: `gql${n}@example.com`, balance, plan });
  return {
    rest: apiClient(app.url, { login: r.login, key: r.api_key }),
    gql: gqlClient(app.url, { key: g.api_key }),
    restId: r.id, gqlId: g.id, restKey: r.api_key, gqlKey: g.api_key,
  };
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

function restOutcome(body: any, charged: number): Outcome {
  const ok = body.status_code === 20000;
  return { code: body.status_code, tasks: ok ? body.tasks.map((t: any) => t.status_code) : [], cost: round(body.cost), charged: round(charged) };
}

/** `payload` picks the mutation's payload from `data`; `single` payloads are one result. */
function gqlOutcome(body: any, charged: number, payload: (data: any) => any, single = false): Outcome {
  if (body.errors?.length) return { code: body.errors[0].extensions.code, tasks: [], cost: 0, charged: round(charged) };
  const p = payload(body.data);
  const tasks = single ? [p.statusCode] : p.results.map((r: any) => r.statusCode);
  return { code: 20000, tasks, cost: round(p.cost), charged: round(charged) };
}

/** Runs both sides, measuring each account's balance change, and expects equal outcomes. */
async function compare(p: Pair, rest: () => Promise<{ body: any }>, gql: () => Promise<{ body: any }>, pick: (data: any) => any, single = false) {
  const [rb, gb] = [await balanceOf(p.restId), await balanceOf(p.gqlId)];
  const r = await rest();
  const g = await gql();
  const restSide = restOutcome(r.body, rb - (await balanceOf(p.restId)));
  const gqlSide = gqlOutcome(g.body, gb - (await balanceOf(p.gqlId)), pick, single);
  expect(gqlSide, JSON.stringify({ rest: r.body, graphql: g.body })).toEqual(restSide);
  return { rest: r.body, graphql: g.body, outcome: restSide };
}

/** A REST task element as the GraphQL input object (camelCase keys). */
function camel(element: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(element).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]));
}

const POST_TASKS = 'mutation($tasks: [TaskPostInput!]!) { postTasks(tasks: $tasks) { cost tasksCount tasksError results { id statusCode statusMessage cost task { id cost } } } }';
const HISTORY = 'query($asin: String!, $marketplace: String!, $from: String, $to: String, $limit: Int, $offset: Int) { productHistory(asin: $asin, marketplace: $marketplace, from: $from, to: $to, limit: $limit, offset: $offset) { cost products { asin observedAt } } }';
const CREATE_KEY = 'mutation($label: String) { createKey(label: $label) { statusCode statusMessage cost created { key apiKey { id label } } } }';
const REVOKE_KEY = 'mutation($id: Int!) { revokeKey(id: $id) { statusCode statusMessage cost apiKey { id revokedAt } } }';
const ADD = 'mutation($s: [SubscriptionInput!]!) { addSubscriptions(subscriptions: $s) { cost results { statusCode cost subscription { id status frequency tag } } } }';
const DELETE = 'mutation($s: [SubscriptionSelector!]!) { deleteSubscriptions(subscriptions: $s) { cost results { statusCode cost subscription { id } } } }';

function product(asin: string, status: Product['status'] = 'ok', at = new Date()): Product {
  return {
    asin, marketplace: 'com', url: `https://www.amazon.com/dp/${asin}`, observed_at: at.toISOString(), status,
    title: status === 'not_found' ? null : `Product ${asin}`, byline: [], variant: null, variants: [], price: null, bsr: null,
    rating: null, ratings_count: null, image_url: null, details: {}, parser_version: 'test', ...version1Fields(),
  };
}

beforeAll(async () => {
  app = await startTestApp({ database: 'pglite' });
});

afterAll(async () => {
  await app?.close();
});

describe('postTasks = POST /v1/retail/product/task_post', () => {
  it('mixed valid and invalid elements: the same task codes and charges', async () => {
    const p = await pair(10);
    const body = [
      { asin: 'B0PAR00001', marketplace: 'com' },
      { asin: 'b0par00002', marketplace: 'us', priority: 2, tag: 'dash' },
      { asin: 'bad', marketplace: 'com' },
      { asin: 'B0PAR00003', marketplace: 'zz' },
      { asin: 'B0PAR00004', marketplace: 'com', tag: 'x'.repeat(256) },
      { asin: 'B0PAR00005', marketplace: 'com', postback_url: 'http://127.0.0.1/hook' },
      { asin: 'B0PAR00006', marketplace: 'com', priority: 3 },
    ];
    const { outcome, graphql } = await compare(p, () => p.rest.post('/v1/retail/product/task_post', body), () => p.gql(POST_TASKS, { tasks: body.map(camel) }), (d) => d.postTasks);
    expect(outcome.tasks).toEqual([20100, 20100, 40503, 40502, 40501, 40501, 40501]);
    expect(outcome.charged).toBe(0.0045);
    const [first] = graphql.data.postTasks.results;
    expect(first.task).toEqual({ id: first.id, cost: 0.0015 });
  });

  it('no valid element: the same request-level code (40503)', async () => {
    const p = await pair(10);
    const body = [{ asin: 'bad', marketplace: 'com' }, { asin: 'worse', marketplace: 'com' }];
    const { outcome } = await compare(p, () => p.rest.post('/v1/retail/product/task_post', body), () => p.gql(POST_TASKS, { tasks: body.map(camel) }), (d) => d.postTasks);
    expect(outcome).toMatchObject({ code: 40503, charged: 0 });
  });

  it('the balance runs out: 40200 per task, then 40200 for the request', async () => {
    const p = await pair(0.002);
    const two = [{ asin: 'B0PAR00011', marketplace: 'com' }, { asin: 'B0PAR00012', marketplace: 'com' }];
    const first = await compare(p, () => p.rest.post('/v1/retail/product/task_post', two), () => p.gql(POST_TASKS, { tasks: two.map(camel) }), (d) => d.postTasks);
    expect(first.outcome).toMatchObject({ code: 20000, tasks: [20100, 40200], charged: 0.0015 });
    const one = [{ asin: 'B0PAR00013', marketplace: 'com' }];
    const second = await compare(p, () => p.rest.post('/v1/retail/product/task_post', one), () => p.gql(POST_TASKS, { tasks: one.map(camel) }), (d) => d.postTasks);
    expect(second.outcome).toMatchObject({ code: 40200, charged: 0 });
  });

  it('priority 2 on the basic plan: 40600', async () => {
    const p = await pair(10, 'basic');
    const body = [{ asin: 'B0PAR00021', marketplace: 'com', priority: 2 }];
    const { outcome } = await compare(p, () => p.rest.post('/v1/retail/product/task_post', body), () => p.gql(POST_TASKS, { tasks: body.map(camel) }), (d) => d.postTasks);
    expect(outcome).toMatchObject({ code: 40600, charged: 0 });
  });

  it('completed at once from a fresh not_found observation: refunded at once on both sides', async () => {
    await storeObservation(app.db, product('B0PAR00031', 'not_found'));
    const p = await pair(10);
    const body = [{ asin: 'B0PAR00031', marketplace: 'com' }];
    const { outcome } = await compare(p, () => p.rest.post('/v1/retail/product/task_post', body), () => p.gql(POST_TASKS, { tasks: body.map(camel) }), (d) => d.postTasks);
    expect(outcome).toMatchObject({ code: 20000, tasks: [20100], cost: 0, charged: 0 });
  });
});

describe('productHistory = POST /v1/retail/product/history (one element)', () => {
  beforeAll(async () => {
    for (let i = 0; i < 3; i++) await storeObservation(app.db, product('B0HIST0001', 'ok', new Date(Date.UTC(2026, 0, 10 + i, 12))));
  });

  const cases: [string, Record<string, unknown>, Partial<Outcome>][] = [
    ['a stored product: charged the history rate', { asin: 'B0HIST0001', marketplace: 'us' }, { code: 20000, tasks: [20000], charged: 0.0005 }],
    ['a date range', { asin: 'B0HIST0001', marketplace: 'com', date_from: '2026-01-11', date_to: '2026-01-11' }, { code: 20000, charged: 0.0005 }],
    ['an unknown product: charged, empty', { asin: 'B0HIST0099', marketplace: 'com' }, { code: 20000, charged: 0.0005 }],
    ['an invalid ASIN', { asin: 'nope', marketplace: 'com' }, { code: 40503, charged: 0 }],
    ['an unknown marketplace', { asin: 'B0HIST0001', marketplace: 'xx' }, { code: 40502, charged: 0 }],
    ['date_from after date_to', { asin: 'B0HIST0001', marketplace: 'com', date_from: '2026-02-01', date_to: '2026-01-01' }, { code: 40501, charged: 0 }],
    ['a bad day', { asin: 'B0HIST0001', marketplace: 'com', date_from: '2026-13-01' }, { code: 40501, charged: 0 }],
    ['limit out of range', { asin: 'B0HIST0001', marketplace: 'com', limit: 0 }, { code: 40501, charged: 0 }],
  ];
  for (const [name, element, expected] of cases) {
    it(name, async () => {
      const p = await pair(1);
      const { date_from: from, date_to: to, ...rest } = element;
      const { outcome, rest: restBody, graphql } = await compare(
        p,
        () => p.rest.post('/v1/retail/product/history', [element]),
        () => p.gql(HISTORY, { ...rest, from, to }),
        (d) => ({ results: [{ statusCode: 20000 }], cost: d.productHistory.cost }),
      );
      expect(outcome).toMatchObject(expected);
      if (outcome.code === 20000) expect(graphql.data.productHistory.products.length).toBe(restBody.tasks[0].result.length);
    });
  }

  it('a balance below the history rate: 40200', async () => {
    const p = await pair(0.0001);
    const { outcome } = await compare(
      p,
      () => p.rest.post('/v1/retail/product/history', [{ asin: 'B0HIST0001', marketplace: 'com' }]),
      () => p.gql(HISTORY, { asin: 'B0HIST0001', marketplace: 'com' }),
      (d) => d.productHistory,
    );
    expect(outcome).toMatchObject({ code: 40200, charged: 0 });
  });
});

describe('createKey / revokeKey = POST /v1/appendix/keys, DELETE /v1/appendix/keys/{key_id}', () => {
  it('create with a label, a label too long, then the 20-key limit', async () => {
    const p = await pair(1);
    const created = await compare(p, () => p.rest.post('/v1/appendix/keys', [{ label: 'dash' }]), () => p.gql(CREATE_KEY, { label: 'dash' }), (d) => d.createKey, true);
    expect(created.outcome).toMatchObject({ code: 20000, tasks: [20000], charged: 0 });
    expect(created.graphql.data.createKey.created.key).toMatch(/^rda_live_[A-Za-z0-9_-]{40}$/);
    const long = await compare(p, () => p.rest.post('/v1/appendix/keys', [{ label: 'x'.repeat(101) }]), () => p.gql(CREATE_KEY, { label: 'x'.repeat(101) }), (d) => d.createKey, true);
    expect(long.outcome.code).toBe(40501);
    for (let i = 0; i < 18; i++) {
      await p.rest.post('/v1/appendix/keys', [{}]);
      await p.gql(CREATE_KEY, {});
    }
    const full20 = await compare(p, () => p.rest.post('/v1/appendix/keys', [{}]), () => p.gql(CREATE_KEY, {}), (d) => d.createKey, true);
    expect(full20.outcome).toMatchObject({ code: 20000, tasks: [40000], charged: 0 });
  });

  it('revoke: unknown id, invalid id, another key, then the key in use when it is the only one', async () => {
    const p = await pair(1);
    const unknown = await compare(p, () => del(p, '/v1/appendix/keys/999999'), () => p.gql(REVOKE_KEY, { id: 999999 }), (d) => d.revokeKey, true);
    expect(unknown.outcome.code).toBe(40400);
    const invalid = await compare(p, () => del(p, '/v1/appendix/keys/0'), () => p.gql(REVOKE_KEY, { id: 0 }), (d) => d.revokeKey, true);
    expect(invalid.outcome.code).toBe(40501);
    const restExtra = (await p.rest.post('/v1/appendix/keys', [{ label: 'extra' }])).body.tasks[0].result[0].id;
    const gqlExtra = (await p.gql(CREATE_KEY, { label: 'extra' })).body.data.createKey.created.apiKey.id;
    const other = await compare(p, () => del(p, `/v1/appendix/keys/${restExtra}`), () => p.gql(REVOKE_KEY, { id: gqlExtra }), (d) => d.revokeKey, true);
    expect(other.outcome).toMatchObject({ code: 20000, tasks: [20000] });
    expect(other.graphql.data.revokeKey.apiKey.revokedAt).toEqual(expect.any(String));
    const restOwn = (await app.prisma.apiKey.findFirstOrThrow({ where: { accountId: p.restId, revokedAt: null } })).id;
    const gqlOwn = (await app.prisma.apiKey.findFirstOrThrow({ where: { accountId: p.gqlId, revokedAt: null } })).id;
    const only = await compare(p, () => del(p, `/v1/appendix/keys/${restOwn}`), () => p.gql(REVOKE_KEY, { id: gqlOwn }), (d) => d.revokeKey, true);
    expect(only.outcome).toMatchObject({ code: 20000, tasks: [40000] });
  });
});

describe('addSubscriptions / deleteSubscriptions = POST /v1/retail/monitoring/add, /delete', () => {
  it('add: valid, invalid and personal-data elements; free; an update; paused without balance', async () => {
    const p = await pair(1);
    const body = [
      { asin: 'B0MON00001', marketplace: 'com', frequency: 'hourly', tag: 'a' },
      { asin: 'bad', marketplace: 'com', frequency: 'daily' },
      { asin: 'B0MON00002', marketplace: 'uk', frequency: 'daily', external_user_id: 'someone@example.com' },
      { asin: 'B0MON00003', marketplace: 'gb', frequency: 'every_6h', external_user_id: 'user-42' },
    ];
    const added = await compare(p, () => p.rest.post('/v1/retail/monitoring/add', body), () => p.gql(ADD, { s: body.map(camel) }), (d) => d.addSubscriptions);
    expect(added.outcome).toMatchObject({ code: 20000, tasks: [20000, 40503, 40501, 20000], charged: 0 });
    const update = [{ asin: 'B0MON00001', marketplace: 'com', frequency: 'daily', tag: 'b' }];
    const updated = await compare(p, () => p.rest.post('/v1/retail/monitoring/add', update), () => p.gql(ADD, { s: update.map(camel) }), (d) => d.addSubscriptions);
    expect(updated.outcome.tasks).toEqual([20000]);
    expect(updated.graphql.data.addSubscriptions.results[0].subscription).toMatchObject({ frequency: 'daily', tag: 'b', status: 'active' });
    expect(updated.rest.tasks[0].result[0]).toMatchObject({ frequency: 'daily', tag: 'b', status: 'active' });

    const poor = await pair(0);
    const one = [{ asin: 'B0MON00004', marketplace: 'com', frequency: 'daily' }];
    const paused = await compare(poor, () => poor.rest.post('/v1/retail/monitoring/add', one), () => poor.gql(ADD, { s: one.map(camel) }), (d) => d.addSubscriptions);
    expect(paused.rest.tasks[0].result[0].status).toBe('paused_balance');
    expect(paused.graphql.data.addSubscriptions.results[0].subscription.status).toBe('paused_balance');
  });

  it('delete: by id, by asin + marketplace, unknown (40400); a body with no valid element (40501)', async () => {
    const p = await pair(1);
    const body = [{ asin: 'B0DEL00001', marketplace: 'com', frequency: 'daily' }, { asin: 'B0DEL00002', marketplace: 'de', frequency: 'daily' }];
    const restIds = (await p.rest.post('/v1/retail/monitoring/add', body)).body.tasks.map((t: any) => t.result[0].id);
    const gqlIds = (await p.gql(ADD, { s: body.map(camel) })).body.data.addSubscriptions.results.map((r: any) => r.subscription.id);
    const restDelete = [{ id: restIds[0] }, { asin: 'B0DEL00002', marketplace: 'de' }, { id: 999999 }];
    const gqlDelete = [{ id: gqlIds[0] }, { asin: 'B0DEL00002', marketplace: 'de' }, { id: 999999 }];
    const deleted = await compare(p, () => p.rest.post('/v1/retail/monitoring/delete', restDelete), () => p.gql(DELETE, { s: gqlDelete }), (d) => d.deleteSubscriptions);
    expect(deleted.outcome).toMatchObject({ code: 20000, tasks: [20000, 20000, 40400], charged: 0 });
    const invalid = await compare(p, () => p.rest.post('/v1/retail/monitoring/delete', [{ id: 0 }]), () => p.gql(DELETE, { s: [{ id: 0 }] }), (d) => d.deleteSubscriptions);
    expect(invalid.outcome.code).toBe(40501);
  });
});

/** DELETE over REST with the pair's REST credentials (the shared client has GET and POST only). */
async function del(p: Pair, path: string): Promise<{ body: any }> {
  const res = await fetch(app.url + path, { method: 'DELETE', headers: { authorization: authorization({ key: p.restKey }) } });
  return { body: await res.json() };
}
