/**
 * /graphql on a real embedded PostgreSQL (PGlite via startTestApp): account isolation through every
 * field, SQL query counts of large connections (no N+1), authentication, rate limits, errors and
 * limits, usage metering and the transport (GET, GraphiQL). Through the Koa app over HTTP and
 * through `yoga.fetch`. Temporal is replaced by recording launchers.
 */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { CONNECTION_SIZE, QUERY_LIMITS } from '../../api/graphql/builder.js';
import type { GraphQLServer } from '../../api/graphql/yoga.js';
import { loadConfig } from '../../core/config.js';
import { storeObservation } from '../../core/observations.js';
import { version1Fields, type Product } from '../../core/product.js';
import { gqlClient, type GqlClient } from '../support/graphql.js';
import { storeRows } from '../support/observations.js';
import { countingDb, startTestApp, type TestApp } from '../support/test-app.js';
import { apiClient } from '../support/http.js';

let app: TestApp;
let yoga: GraphQLServer;
let seq = 0;

type Account = { id: number; login: string; api_key: string };

function product(asin: string, at = new Date(), title = `Product ${asin}`): Product {
  return {
    asin, marketplace: 'com', url: `https://www.amazon.com/dp/${asin}`, observed_at: at.toISOString(), status: 'ok', title,
    byline: ['Brand'], variant: null, variants: [{ name: 'Blue', asin }], price: { amount: 9.99, currency: 'USD' },
    bsr: { rank: 5, category: 'Books', subcategories: [{ rank: 1, category: 'Poetry' }] }, rating: 4.5, ratings_count: 10,
    image_url: null, details: { publisher: 'Acme' }, parser_version: 'test', ...version1Fields(),
  };
}

async function account(balance = 10, extra: { requestsPerMinute?: number; tasksPerMinute?: number } = {}): Promise<Account> {
  const n = ++seq;
  const created = await createAccount(app.db, { login: `user${n}`, email: `user${n}@example.com`, balance });
  if (Object.keys(extra).length) await app.prisma.account.update({ where: { id: created.id }, data: extra });
  return created;
}

/** Stores `count` observations delivered to a subscription (oldest first) and marks the newest as latest. */
async function deliver(subscriptionId: number, asin: string, count: number, title = 'delivered'): Promise<bigint[]> {
  const ids: bigint[] = [];
  for (let i = 0; i < count; i++) ids.push(await storeObservation(app.db, product(asin, new Date(Date.now() - (count - i) * 60_000), `${title} ${i}`), subscriptionId));
  await app.prisma.subscription.update({ where: { id: subscriptionId }, data: { latestObservationId: ids.at(-1)! } });
  return ids;
}

const ADD = 'mutation($s: [SubscriptionInput!]!) { addSubscriptions(subscriptions: $s) { results { statusCode subscription { id } } } }';

beforeAll(async () => {
  app = await startTestApp({ database: 'pglite' });
  yoga = app.yoga();
});

afterAll(async () => {
  await app?.close();
});

describe('account isolation: A reaches none of B\'s tasks, subscriptions or keys', () => {
  let a: Account;
  let b: Account;
  const bTasks: string[] = [];
  let aTask: string;
  let bSubs: number[];
  let aSub: number;
  let bKeyIds: number[];
  let bDeliveries: bigint[];
  const clients: [string, () => GqlClient][] = [
    ['HTTP', () => gqlClient(app.url, { login: a.login, key: a.api_key })],
    ['yoga.fetch', () => gqlClient(yoga, { key: a.api_key })],
  ];

  beforeAll(async () => {
    a = await account();
    b = await account();
    const bRest = apiClient(app.url, { login: b.login, key: b.api_key });
    const posted = await bRest.post('/v1/retail/product/task_post', [{ asin: 'B0ISO00001', marketplace: 'com', tag: 'b-tag' }, { asin: 'B0ISO00002', marketplace: 'com' }]);
    bTasks.push(...posted.body.tasks.map((t: any) => t.id));
    const aPosted = await apiClient(app.url, { key: a.api_key }).post('/v1/retail/product/task_post', [{ asin: 'B0ISO00003', marketplace: 'com' }]);
    aTask = aPosted.body.tasks[0].id;
    const bAdded = await gqlClient(app.url, { key: b.api_key })(ADD, { s: [{ asin: 'B0ISO00001', marketplace: 'com', frequency: 'daily' }, { asin: 'B0ISO00009', marketplace: 'de', frequency: 'daily' }] });
    bSubs = bAdded.body.data.addSubscriptions.results.map((r: any) => r.subscription.id);
    // A monitors the same product as B: the deliveries of each stay with each.
    const aAdded = await gqlClient(app.url, { key: a.api_key })(ADD, { s: [{ asin: 'B0ISO00001', marketplace: 'com', frequency: 'hourly' }] });
    aSub = aAdded.body.data.addSubscriptions.results[0].subscription.id;
    bDeliveries = await deliver(bSubs[0]!, 'B0ISO00001', 2, 'for B');
    await deliver(aSub, 'B0ISO00001', 1, 'for A');
    await bRest.post('/v1/appendix/keys', [{ label: 'b second' }]);
    bKeyIds = (await app.prisma.apiKey.findMany({ where: { accountId: b.id } })).map((k) => k.id);
  });

  for (const [name, client] of clients) {
    it(`by id: task(id) answers null for B's tasks (${name})`, async () => {
      const gql = client();
      for (const id of bTasks) {
        const res = await gql('query($id: ID!) { task(id: $id) { id asin } }', { id });
        expect(res.body).toEqual({ data: { task: null } });
      }
      expect((await gql('query($id: ID!) { task(id: $id) { id } }', { id: aTask })).body.data.task).toEqual({ id: aTask });
    });

    it(`by listing: tasks, subscriptions and keys hold only A's rows (${name})`, async () => {
      const gql = client();
      const res = await gql(`{
        tasks(first: 100) { totalCount edges { node { id } } }
        tagged: tasks(tag: "b-tag") { totalCount edges { node { id } } }
        queued: tasks(status: queued, from: "2000-01-01") { edges { node { id status } } }
        subscriptions(first: 100) { totalCount edges { node { id } } }
        me { id login apiKeys { id } }
      }`);
      expect(res.body.errors).toBeUndefined();
      const d = res.body.data;
      expect(d.tasks.edges.map((e: any) => e.node.id)).toEqual([aTask]);
      expect(d.tasks.totalCount).toBe(1);
      expect(d.tagged).toEqual({ totalCount: 0, edges: [] });
      expect(d.queued.edges).toEqual([{ node: { id: aTask, status: 'queued' } }]);
      expect(d.subscriptions.edges.map((e: any) => e.node.id)).toEqual([aSub]);
      expect(d.subscriptions.totalCount).toBe(1);
      expect(d.me.id).toBe(a.id);
      expect(d.me.apiKeys.map((k: any) => k.id).filter((id: number) => bKeyIds.includes(id))).toEqual([]);
    });

    it(`through nested fields: A's subscription to the same product shows only A's deliveries (${name})`, async () => {
      const gql = client();
      const res = await gql('{ subscriptions { edges { node { id latestObservation { title } observations(first: 50) { edges { node { id product { title } } } } } } } }');
      const node = res.body.data.subscriptions.edges[0].node;
      expect(node.latestObservation.title).toBe('for A 0');
      expect(node.observations.edges.map((e: any) => e.node.product.title)).toEqual(['for A 0']);
      expect(node.observations.edges.map((e: any) => e.node.id)).not.toContain(String(bDeliveries[0]));
    });

    it(`by cursor: a cursor forged from B's task id pages A's tasks only (${name})`, async () => {
      const gql = client();
      const forged = Buffer.from(`GPC:S:${bTasks[0]}`).toString('base64');
      const res = await gql('query($after: String) { tasks(after: $after, first: 100) { edges { node { id } } } }', { after: forged });
      for (const edge of res.body.data?.tasks.edges ?? []) expect(bTasks).not.toContain(edge.node.id);
    });
  }

  it('mutations on B\'s ids: revokeKey 40400, deleteSubscriptions 40400, nothing of B changes', async () => {
    const gql = gqlClient(app.url, { key: a.api_key });
    for (const keyId of bKeyIds) {
      const res = await gql('mutation($id: Int!) { revokeKey(id: $id) { statusCode } }', { id: keyId });
      expect(res.body.errors[0].extensions.code).toBe(40400);
    }
    const byId = await gql('mutation($s: [SubscriptionSelector!]!) { deleteSubscriptions(subscriptions: $s) { results { statusCode } } }', { s: bSubs.map((id) => ({ id })) });
    expect(byId.body.data.deleteSubscriptions.results.map((r: any) => r.statusCode)).toEqual([40400, 40400]);
    const byProduct = await gql('mutation($s: [SubscriptionSelector!]!) { deleteSubscriptions(subscriptions: $s) { results { statusCode } } }', { s: [{ asin: 'B0ISO00009', marketplace: 'de' }] });
    expect(byProduct.body.data.deleteSubscriptions.results[0].statusCode).toBe(40400);
    expect(await app.prisma.apiKey.count({ where: { accountId: b.id, revokedAt: null } })).toBe(bKeyIds.length);
    expect(await app.prisma.subscription.count({ where: { id: { in: bSubs } } })).toBe(2);
    // B still works with every key.
    expect((await gqlClient(app.url, { key: b.api_key })('{ me { login } }')).body.data.me.login).toBe(b.login);
  });

  it('mutation payloads load only the caller\'s rows (the same product added by A stays A\'s)', async () => {
    const res = await gqlClient(yoga, { key: a.api_key })(ADD.replace('subscription { id }', 'subscription { id frequency }'), { s: [{ asin: 'B0ISO00001', marketplace: 'com', frequency: 'every_6h' }] });
    expect(res.body.data.addSubscriptions.results[0].subscription).toEqual({ id: aSub, frequency: 'every_6h' });
    expect((await app.prisma.subscription.findUniqueOrThrow({ where: { id: bSubs[0]! } })).frequency).toBe('daily');
  });
});

describe('SQL queries per request: constant in the page size (no N+1)', () => {
  let counting: ReturnType<typeof countingDb>;
  let gql: GqlClient;
  const measured: Record<string, Record<number, { total: number; data: number }>> = {};
  /**
   * The data statements do not grow with the page size. Around them: authentication, rate limiting
   * and at most one flush of the usage meter, which runs once a second whatever the request (so a
   * slow request may include one and a fast one not).
   */
  const expectConstant = (m: Record<number, { total: number; data: number }>) => {
    expect(m[100]!.data).toBe(m[1]!.data);
    expect(m[100]!.total - m[100]!.data).toBeLessThanOrEqual(3);
  };
  /** Statements of authentication, rate limiting and metering; the rest reads the data. */
  const overhead = /"?api_keys"?|"public"\."accounts"|rate_limits|usage_counters/;

  beforeAll(async () => {
    const q = await account();
    await app.prisma.subscription.createMany({
      data: Array.from({ length: 100 }, (_, i) => ({ accountId: q.id, asin: `B0CNT${String(i).padStart(5, '0')}`, marketplace: 'com', frequency: 'hourly' })),
    });
    const subs = await app.prisma.subscription.findMany({ where: { accountId: q.id }, orderBy: { id: 'asc' } });
    const base = product('B0CNT00000');
    await storeRows(app.db, subs.flatMap((s, i) => [0, 1, 2].map((k) => ({
        asin: s.asin!, marketplace: 'com', observedAt: new Date(Date.now() - (3 - k) * 3_600_000), status: 'ok', url: base.url, title: `${s.asin} #${k}`,
        byline: base.byline, variants: base.variants, priceAmount: '9.99', priceCurrency: 'USD', bsr: base.bsr,
        bsrRank: 5, rating: '4.5', ratingsCount: 10 + i, details: base.details, parserVersion: 'test', subscriptionId: s.id,
      }))),
    );
    await app.prisma.$executeRaw`UPDATE subscriptions s SET latest_observation_id = (SELECT max(o.id) FROM observations o WHERE o.subscription_id = s.id) WHERE s.account_id = ${q.id}`;
    const latest = await app.prisma.subscription.findMany({ where: { accountId: q.id }, select: { latestObservationId: true } });
    await app.prisma.task.createMany({
      data: latest.map((s, i) => ({
        id: `01010000-0000-4000-8000-${String(i).padStart(12, '0')}`, accountId: q.id, endpoint: 'task_post',
        asin: `B0CNT${String(i).padStart(5, '0')}`, marketplace: 'com', data: {}, state: 'completed', statusCode: 20000, statusMessage: 'Ok.',
        cost: '0.0015', observationId: s.latestObservationId, completedAt: new Date(), expiresAt: new Date(Date.now() + 86_400_000),
      })),
    });
    counting = countingDb(app.dbUrl);
    const countingYoga = app.yoga({ db: counting });
    gql = gqlClient(countingYoga, { key: q.api_key });
  });

  afterAll(async () => {
    await counting?.close();
    console.info('GraphQL SQL statements per request (total / data), by page size:', JSON.stringify(measured));
  });

  async function measure(name: string, size: number, query: string): Promise<any> {
    counting.statements.length = 0;
    const res = await gql(query, { n: size });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const total = counting.statements.length;
    const data = counting.statements.filter((s) => !overhead.test(s)).length;
    (measured[name] ??= {})[size] = { total, data };
    return res.body.data;
  }

  it('subscriptions with nested latest observations: 2 data queries for 1, 10 or 100 rows', async () => {
    const query = 'query($n: Int) { subscriptions(first: $n) { edges { node { id asin status latestObservation { title observedAt price { amount currency } bsr { rank subcategories { rank category } } variants { asin } details { label value } } } } } }';
    for (const n of [1, 10, 100]) {
      const data = await measure('subscriptions+latestObservation', n, query);
      expect(data.subscriptions.edges).toHaveLength(n);
      expect(data.subscriptions.edges.every((e: any) => e.node.latestObservation.title.endsWith('#2'))).toBe(true);
    }
    const m = measured['subscriptions+latestObservation']!;
    expectConstant(m);
    expect(m[100]!.data).toBe(2);
    expect(m[100]!.total).toBeLessThanOrEqual(7);
  });

  it('subscriptions with a nested observation connection and totalCount: 5 data queries, at most `first` rows each', async () => {
    const query = 'query($n: Int) { subscriptions(first: $n) { totalCount edges { node { id latestObservation { title } observations(first: 2) { pageInfo { hasNextPage } edges { cursor node { id product { title } } } } } } } }';
    for (const n of [1, 10, 100]) {
      const data = await measure('subscriptions+observations', n, query);
      for (const edge of data.subscriptions.edges) {
        expect(edge.node.observations.edges.map((e: any) => e.node.product.title.slice(-2))).toEqual(['#2', '#1']);
        expect(edge.node.observations.pageInfo.hasNextPage).toBe(true);
      }
    }
    const m = measured['subscriptions+observations']!;
    expectConstant(m);
    expect(m[100]!.data).toBe(5); // page, totalCount, latest, delivery ids, delivery rows
  });

  it('paging a subscription\'s deliveries with the cursor continues where the page ended', async () => {
    const first = await measure('observations page', 1, 'query($n: Int) { subscriptions(first: $n) { edges { node { observations(first: 2) { edges { cursor node { product { title } } } } } } } }');
    const node = first.subscriptions.edges[0].node;
    const after = node.observations.edges[1].cursor;
    const res = await gql('query($after: String) { subscriptions(first: 1) { edges { node { observations(first: 5, after: $after) { pageInfo { hasNextPage } edges { node { product { title } } } } } } } }', { after });
    const rest = res.body.data.subscriptions.edges[0].node.observations;
    expect(rest.edges.map((e: any) => e.node.product.title.slice(-2))).toEqual(['#0']);
    expect(rest.pageInfo.hasNextPage).toBe(false);
  });

  it('tasks with nested products: 2 data queries for 1, 10 or 100 rows', async () => {
    const query = 'query($n: Int) { tasks(first: $n) { edges { node { id status statusCode cost product { title price { amount } } } } } }';
    for (const n of [1, 10, 100]) {
      const data = await measure('tasks+product', n, query);
      expect(data.tasks.edges).toHaveLength(n);
      expect(data.tasks.edges.every((e: any) => e.node.product.title.startsWith('B0CNT'))).toBe(true);
    }
    const m = measured['tasks+product']!;
    expectConstant(m);
    expect(m[100]!.data).toBe(2);
  });

  it('a page larger than the maximum is cut to it', async () => {
    const data = await measure('subscriptions max', 500, 'query($n: Int) { subscriptions(first: $n) { edges { node { id } } } }');
    expect(data.subscriptions.edges).toHaveLength(CONNECTION_SIZE.max);
  });
});

describe('authentication, rate limits, errors, limits and transport', () => {
  it('authentication: none for reference data, 40100 / 40101 / 40102 with HTTP 401 otherwise', async () => {
    const anonymous = app.gql();
    expect((await anonymous('{ marketplaces { code aliases } status { marketplace { code } available status } }')).body.data.status).toHaveLength(12);
    const me = await anonymous('{ me { login } }');
    expect(me.status).toBe(401);
    expect(me.body.errors[0].extensions.code).toBe(40100);
    const mixed = await anonymous('{ marketplaces { code } tasks { totalCount } }');
    expect([mixed.status, mixed.body.errors[0].extensions.code]).toEqual([401, 40100]);
    const wrong = await app.gql({ key: 'rda_live_nope' })('{ marketplaces { code } }');
    expect([wrong.status, wrong.body.errors[0].extensions.code]).toEqual([401, 40100]);

    const u = await account();
    const gql = app.gql({ login: u.login, key: u.api_key });
    const extra = (await gql('mutation { createKey(label: "second") { statusCode created { key apiKey { id } } } }')).body.data.createKey.created;
    const viaExtra = app.gql({ key: extra.key });
    expect((await viaExtra('{ me { login } }')).body.data.me.login).toBe(u.login);
    expect((await gql('mutation($id: Int!) { revokeKey(id: $id) { statusCode } }', { id: extra.apiKey.id })).body.data.revokeKey.statusCode).toBe(20000);
    const revoked = await viaExtra('{ me { login } }');
    expect([revoked.status, revoked.body.errors[0].extensions.code]).toEqual([401, 40101]);
    await app.prisma.account.update({ where: { id: u.id }, data: { disabled: true } });
    const disabled = await gql('{ me { login } }');
    expect([disabled.status, disabled.body.errors[0].extensions.code]).toEqual([401, 40102]);
  });

  it('requests per minute: 429 / 40202 with Retry-After, over HTTP', async () => {
    const u = await account(10, { requestsPerMinute: 2 });
    const gql = gqlClient(app.url, { key: u.api_key });
    expect((await gql('{ me { login } }')).status).toBe(200);
    expect((await gql('{ me { login } }')).status).toBe(200);
    const refused = await gql('{ me { login } }');
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions.code).toBe(40202);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('tasks per minute count the task objects of a mutation; a refused one is not charged', async () => {
    const u = await account(10, { tasksPerMinute: 3 });
    const gql = app.gql({ key: u.api_key });
    const tasks = (n: number) => Array.from({ length: n }, (_, i) => ({ asin: `B0RATE000${i}`, marketplace: 'com' }));
    const post = 'mutation($t: [TaskPostInput!]!) { postTasks(tasks: $t) { cost } }';
    const refused = await gql(post, { t: tasks(4) });
    expect([refused.status, refused.body.errors[0].extensions.code]).toEqual([429, 40202]);
    expect(Number((await app.prisma.account.findUniqueOrThrow({ where: { id: u.id } })).balance)).toBe(10);
    expect(await app.prisma.task.count({ where: { accountId: u.id } })).toBe(0);
    expect((await gql(post, { t: tasks(3) })).body.data.postTasks.cost).toBe(0.0045);
  });

  it('unexpected errors are masked as 50000 "Internal error."', async () => {
    const u = await account();
    const noMonitors = app.yoga({ monitors: undefined });
    const res = await gqlClient(noMonitors, { key: u.api_key })(ADD, { s: [{ asin: 'B0MASK0001', marketplace: 'com', frequency: 'daily' }] });
    expect(res.body.errors).toEqual([expect.objectContaining({ message: 'Internal error.', extensions: { code: 50000 } })]);
    expect(JSON.stringify(res.body)).not.toMatch(/MonitorLauncher|stack/);
  });

  it('syntax, validation and variable errors are 40000', async () => {
    const u = await account();
    const gql = gqlClient(yoga, { key: u.api_key });
    for (const [query, variables] of [['{ me { login '], ['{ nope }'], ['query($n: Int) { tasks(first: $n) { totalCount } }', { n: 'x' }]] as const) {
      const res = await gql(query, variables as Record<string, unknown> | undefined, { accept: 'application/graphql-response+json' });
      expect(res.body.errors[0].extensions.code, query).toBe(40000);
      expect(res.status, query).toBe(400);
    }
  });

  it('complexity limits and recursive introspection are refused before anything runs (40000); GraphiQL\'s introspection passes', async () => {
    const u = await account();
    const gql = gqlClient(yoga, { key: u.api_key });
    const heavy = await gql('{ subscriptions(first: 100) { edges { node { observations(first: 100) { edges { node { product { title } } } } } } } }', undefined, { accept: 'application/graphql-response+json' });
    expect(heavy.status).toBe(400);
    expect(heavy.body.errors[0]).toMatchObject({ extensions: { code: 40000 } });
    expect(heavy.body.errors[0].message).toContain(`maximum of ${QUERY_LIMITS.complexity}`);
    const bomb = await gql('{ __type(name: "Query") { fields { type { fields { type { fields { name } } } } } } }');
    expect(bomb.body.errors[0].extensions.code).toBe(40000);
    expect(bomb.body.errors[0].message).toContain('repeats');
    const introspection = await gqlClient(yoga)(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, inputValueDeprecation: true, oneOf: true }));
    expect(introspection.body.errors).toBeUndefined();
    expect(introspection.body.data.__schema.queryType.name).toBe('Query');
  });

  it('GET runs queries, but refuses charged fields (405 / 40000, not charged)', async () => {
    const u = await account(1);
    const gql = gqlClient(app.url, { key: u.api_key });
    expect((await gql('{ me { balance } }', undefined, { method: 'GET' })).body.data.me.balance).toBe(1);
    const charged = await gql('{ productHistory(asin: "B0GET00001", marketplace: "com") { cost } }', undefined, { method: 'GET' });
    expect([charged.status, charged.body.errors[0].extensions.code]).toEqual([405, 40000]);
    const mutation = await gql('mutation { createKey { statusCode } }', undefined, { method: 'GET' });
    expect(mutation.status).toBe(405);
    expect(Number((await app.prisma.account.findUniqueOrThrow({ where: { id: u.id } })).balance)).toBe(1);
  });

  it('usage: each operation adds a request, its tasks and its cost to the `graphql` counter', async () => {
    const u = await account(1);
    const gql = app.gql({ key: u.api_key });
    await gql('{ productHistory(asin: "B0USE00001", marketplace: "com") { cost } }');
    await gql('mutation { postTasks(tasks: [{ asin: "B0USE00002", marketplace: "com" }]) { cost } }');
    const res = await gql('{ me { balance usageReport { endpoints { endpoint requests tasks cost } } } }');
    const graphql = res.body.data.me.usageReport.endpoints.find((e: any) => e.endpoint === 'graphql');
    expect(graphql).toEqual({ endpoint: 'graphql', requests: 2, tasks: 2, cost: 0.002 });
    expect(res.body.data.me.balance).toBe(0.998);
  });

  it('GraphiQL outside production only; a malformed JSON body is the REST 400 / 40000 envelope', async () => {
    const page = await fetch(`${app.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toMatch(/graphiql/i);
    const production = app.yoga({ config: loadConfig({ DATA_DIR: app.dataDir, NODE_ENV: 'production' }) });
    const none = await production.fetch('http://localhost/graphql', { headers: { accept: 'text/html' } });
    expect(await none.text()).not.toMatch(/graphiql/i);
    const malformed = await fetch(`${app.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query": ' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).status_code).toBe(40000);
  });
});
