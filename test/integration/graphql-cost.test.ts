/**
 * What a GraphQL document may cost the service, on the whole Koa app over HTTP on PGlite:
 *
 * - document limits (tokens, depth, aliases, directives, fragments) refuse a document before
 *   anything runs — no SQL, not even authentication — with 40000 / HTTP 400 naming the limit, and
 *   validation is linear in the document: chained fragments that each spread the next one twice
 *   are refused in milliseconds, anonymous or not, and the service keeps answering;
 * - an operation costs the per-minute limits what the REST calls it stands for cost: a request per
 *   root field (each alias apart), and every task object of its list arguments, whether written
 *   inline, through variables, through a variable's default or in fragments — in the same windows
 *   as REST; over a limit it is 40202 / HTTP 429 and charges nothing;
 * - introspection and GraphiQL are off with NODE_ENV=production, on otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { QUERY_LIMITS } from '../../api/graphql/builder.js';
import { gqlClient, type GqlResponse } from '../support/graphql.js';
import { countingDb, startTestApp, type TestApp } from '../support/test-app.js';
import { apiClient } from '../support/http.js';

/** Price of one normal-priority task_post task on the default plan (USD). */
const TASK_PRICE = 0.0015;
/** Strict GraphQL over HTTP: every request-level refusal keeps its HTTP status. */
const STRICT = { accept: 'application/graphql-response+json' } as const;

let app: TestApp;
/** A second app on the same database with NODE_ENV=production. */
let production: Awaited<ReturnType<TestApp['another']>>;
let seq = 0;

async function account(limits: { requestsPerMinute?: number; tasksPerMinute?: number } = {}, balance = 10) {
  const n = ++seq;
  const created = await createAccount(app.db, { login: `cost${n}`, email: `cost${n}@example.com`, balance });
  if (Object.keys(limits).length) await app.prisma.account.update({ where: { id: created.id }, data: limits });
  return created;
}

async function money(accountId: number) {
  const row = await app.prisma.account.findUniqueOrThrow({ where: { id: accountId } });
  return { balance: Number(row.balance), tasks: await app.prisma.task.count({ where: { accountId } }) };
}

let documents = 0;

/**
 * `n` fragments on Query, each spreading the next one twice; the last selects the marketplaces.
 * Each document is new (its operation name), so yoga's parse and validation caches never answer it.
 */
function fragmentChain(n: number): string {
  const fragments = Array.from({ length: n - 1 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
  return `query Chain${++documents} { ...F0 } ${fragments.join(' ')} fragment F${n - 1} on Query { marketplaces { code } }`;
}

/** Task objects for postTasks. */
const tasks = (n: number, prefix = 'B0COST') => Array.from({ length: n }, (_, i) => ({ asin: `${prefix}${String(i).padStart(4, '0')}`, marketplace: 'com' }));
/** The same tasks written as a GraphQL list literal. */
const literal = (list: { asin: string; marketplace: string }[]) => `[${list.map((t) => `{ asin: "${t.asin}", marketplace: "${t.marketplace}" }`).join(' ')}]`;

const refusal = (res: GqlResponse) => [res.status, res.body.errors?.[0]?.extensions?.code];

beforeAll(async () => {
  app = await startTestApp({ database: 'pglite' });
  production = await app.another({ env: { NODE_ENV: 'production' } });
});

afterAll(async () => {
  await app?.close();
});

describe('document limits', () => {
  // The 50 ms target is measured by `npm run bench -- graphql`; here only a bound no exponential
  // rule can meet (24 links took tens of seconds before validation was linear).
  it('30 chained fragments, each spreading the next twice, are refused at once, anonymous and authenticated; the service keeps answering', async () => {
    const u = await account({ requestsPerMinute: 10_000 });
    const callers = { anonymous: gqlClient(app.url), authenticated: gqlClient(app.url, { key: u.api_key }) };
    // Growing chains: before validation was linear each link doubled the time (20 links took
    // seconds), so a regression fails here on a short chain instead of hanging on a long one.
    for (const links of [12, 16, 20, 24, 30]) {
      for (const [who, gql] of Object.entries(callers)) {
        const times: number[] = [];
        for (let i = 0; i < 5; i++) {
          const document = fragmentChain(links);
          const t0 = performance.now();
          const res = await gql(document, undefined, STRICT);
          times.push(performance.now() - t0);
          expect(refusal(res), `${links} links, ${who}`).toEqual([400, 40000]);
          // Over the fragment limit the count refuses it; under it, the breadth of 2^links fields.
          expect(res.body.errors[0].message).toMatch(links > QUERY_LIMITS.fragments ? /Fragment limit of 20 exceeded, found \d+/ : /breadth \d+ exceeds the maximum of 400/);
        }
        expect(Math.max(...times), `${links} links, ${who}: ${times.map((t) => t.toFixed(1)).join(', ')} ms`).toBeLessThan(2_000);
      }
    }
    // Ten at once, with ordinary requests among them: the ordinary ones are answered at once.
    const t0 = performance.now();
    const [health, reference] = await Promise.all([
      fetch(`${app.url}/health`).then((r) => r.json()),
      callers.anonymous('{ marketplaces { code } }'),
      ...Array.from({ length: 10 }, () => callers.anonymous(fragmentChain(30), undefined, STRICT)),
    ]);
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(health.status).toBe('ok');
    expect((reference as GqlResponse).body.data.marketplaces).toHaveLength(12);
  });

  it('each limit is 40000 / HTTP 400 naming it, decided before authentication and before any SQL', async () => {
    const counting = countingDb(app.dbUrl);
    try {
      const yoga = app.yoga({ db: counting });
      // A key that does not exist: authentication would answer 401; the limits answer first.
      const gql = gqlClient(yoga, { key: 'rda_live_not_a_key' });
      const deep = `{ __type(name: "Query") ${'{ ofType '.repeat(QUERY_LIMITS.depth)}{ name }${' }'.repeat(QUERY_LIMITS.depth)} }`;
      const cases: [string, RegExp][] = [
        [`{ ${'marketplaces { code } '.repeat(1_300)} }`, new RegExp(`Token limit of ${QUERY_LIMITS.tokens} exceeded`)],
        [deep, new RegExp(`Query depth limit of ${QUERY_LIMITS.depth} exceeded, found ${QUERY_LIMITS.depth + 2}`)],
        [`{ ${Array.from({ length: QUERY_LIMITS.aliases + 1 }, (_, i) => `m${i}: marketplaces { code }`).join(' ')} }`, new RegExp(`Aliases limit of ${QUERY_LIMITS.aliases} exceeded, found ${QUERY_LIMITS.aliases + 1}`)],
        [`{ ${'marketplaces @include(if: true) { code } '.repeat(QUERY_LIMITS.directives + 1)} }`, new RegExp(`Directives limit of ${QUERY_LIMITS.directives} exceeded`)],
        [fragmentChain(QUERY_LIMITS.fragments + 1), new RegExp(`Fragment limit of ${QUERY_LIMITS.fragments} exceeded, found ${QUERY_LIMITS.fragments + 1}`)],
        ['{ __type(name: "Query") { fields { type { fields { name } } } } }', /Introspection field "fields" repeats within itself/],
      ];
      for (const [document, message] of cases) {
        for (const accept of ['application/json', STRICT.accept]) {
          const res = await gql(document, undefined, { accept });
          expect(refusal(res), String(message)).toEqual([400, 40000]);
          expect(res.body.errors[0].message, String(message)).toMatch(/^Bad Request\. /);
          expect(res.body.errors[0].message).toMatch(message);
        }
      }
      expect(counting.statements).toEqual([]);
      // At the limits themselves the same shapes are accepted (and reach authentication: 401).
      const atLimits = await gql(`{ ${Array.from({ length: QUERY_LIMITS.aliases }, (_, i) => `m${i}: marketplaces { code }`).join(' ')} }`);
      expect(refusal(atLimits)).toEqual([401, 40100]);
    } finally {
      await counting.close();
    }
  });
});

describe('rate limits count what the REST calls would count', () => {
  it('aliases: every aliased root field is one request, in the same window as REST', async () => {
    const u = await account({ requestsPerMinute: 3 });
    const gql = gqlClient(app.url, { key: u.api_key });
    const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: me { login }`).join(' ')} }`;
    const refused = await gql(aliased(4));
    expect(refusal(refused)).toEqual([429, 40202]);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // A refused operation does not stay counted: three fields fit the window of three.
    const ok = await gql(aliased(3));
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body.data)).toHaveLength(3);
    // REST shares the window: it is full.
    expect((await apiClient(app.url, { key: u.api_key }).get('/v1/appendix/user_data')).status).toBe(429);
  });

  it('aliases and fragments: the task objects of every postTasks count together against tasks per minute, like one REST body', async () => {
    const u = await account({ tasksPerMinute: 5 });
    const gql = gqlClient(app.url, { key: u.api_key });
    const rest = apiClient(app.url, { key: u.api_key });
    const sixAliased = `mutation { ...Two } fragment Two on Mutation { a: postTasks(tasks: ${literal(tasks(3, 'B0ALIA'))}) { cost } b: postTasks(tasks: ${literal(tasks(3, 'B0ALIB'))}) { cost } }`;
    expect(refusal(await gql(sixAliased))).toEqual([429, 40202]);
    expect((await rest.post('/v1/retail/product/task_post', tasks(6, 'B0REST'))).body.status_code).toBe(40202);
    expect(await money(u.id)).toEqual({ balance: 10, tasks: 0 });

    const five = await gql(`mutation($b: [TaskPostInput!]!) { a: postTasks(tasks: ${literal(tasks(3, 'B0ALIC'))}) { cost } b: postTasks(tasks: $b) { cost } }`, { b: tasks(2, 'B0ALID') });
    expect(five.status).toBe(200);
    expect(five.body.data.a.cost + five.body.data.b.cost).toBeCloseTo(5 * TASK_PRICE, 10);
    // The window holds 5 of 5: one more task, by either way, is refused.
    const more = await rest.post('/v1/retail/product/task_post', tasks(1, 'B0MORE'));
    expect([more.status, more.body.status_code]).toEqual([429, 40202]);
    expect(refusal(await gql('mutation { postTasks(tasks: [{ asin: "B0MORE0001", marketplace: "com" }]) { cost } }'))).toEqual([429, 40202]);
    const after = await money(u.id);
    expect(after.tasks).toBe(5);
    expect(after.balance).toBeCloseTo(10 - 5 * TASK_PRICE, 10);
  });

  it('variable defaults count: a list given through a default, or through defaulted variables in a list, is refused over the limit and charges nothing', async () => {
    const u = await account({ tasksPerMinute: 3 });
    const gql = gqlClient(app.url, { key: u.api_key });
    const byDefault = `mutation($t: [TaskPostInput!]! = ${literal(tasks(4, 'B0DEFA'))}) { postTasks(tasks: $t) { cost } }`;
    expect(refusal(await gql(byDefault))).toEqual([429, 40202]);
    const inList = 'mutation($x: TaskPostInput! = { asin: "B0DEFB0001", marketplace: "com" }) { postTasks(tasks: [$x, $x, $x, $x]) { cost } }';
    expect(refusal(await gql(inList))).toEqual([429, 40202]);
    const monitoring = `mutation($s: [SubscriptionInput!]! = [${Array.from({ length: 4 }, (_, i) => `{ asin: "B0DEFC000${i}", marketplace: "com", frequency: daily }`).join(' ')}]) { addSubscriptions(subscriptions: $s) { results { statusCode } } }`;
    expect(refusal(await gql(monitoring))).toEqual([429, 40202]);
    expect(await money(u.id)).toEqual({ balance: 10, tasks: 0 });
    expect(await app.prisma.subscription.count({ where: { accountId: u.id } })).toBe(0);
    // Within the limit, the default is what runs and what is counted.
    const three = await gql(`mutation($t: [TaskPostInput!]! = ${literal(tasks(3, 'B0DEFD'))}) { postTasks(tasks: $t) { cost } }`);
    expect(three.body.data.postTasks.cost).toBeCloseTo(3 * TASK_PRICE, 10);
    expect(refusal(await gql(byDefault.replace('B0DEFA', 'B0DEFE')))).toEqual([429, 40202]);
    expect((await money(u.id)).tasks).toBe(3);
  });
});

describe('introspection and GraphiQL', () => {
  const introspection = '{ __schema { queryType { name } } }';

  it('are off with NODE_ENV=production: introspection is 40000 / HTTP 400, GET /graphql serves no GraphiQL; __typename still answers', async () => {
    const gql = gqlClient(production.url);
    for (const query of [introspection, '{ __type(name: "Query") { name } }']) {
      const res = await gql(query, undefined, STRICT);
      expect(refusal(res), query).toEqual([400, 40000]);
      expect(res.body.errors[0].message).toMatch(/introspection has been disabled/);
    }
    expect((await gql('{ __typename marketplaces { code } }')).body.data.__typename).toBe('Query');
    const page = await fetch(`${production.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(await page.text()).not.toMatch(/graphiql/i);
  });

  it('are on otherwise', async () => {
    expect((await gqlClient(app.url)(introspection)).body.data.__schema.queryType.name).toBe('Query');
    const page = await fetch(`${app.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toMatch(/graphiql/i);
  });
});
