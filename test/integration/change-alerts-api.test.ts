/**
 * Change alerts through the API on a real embedded PostgreSQL (PGlite), Temporal replaced by the
 * recording launchers: monitoring/add `alerts` and `alert_url` (every refusal names the rule and
 * key), what monitoring/list and GraphQL show of the rules and their state, how posting again
 * keeps or replaces them, and the change events that stored monitoring observations record
 * (GET /v1/retail/monitoring/change_events and GraphQL `changeEvents`, paged). Deliveries to a
 * receiver are change-alerts.test.ts (the whole stack).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { apiClient, type ApiClient } from '../support/http.js';
import { observe, productWith, RULE_SCRIPTS } from '../support/alerts.js';
import { gqlClient } from '../support/graphql.js';
import { countingDb, startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
let api: ApiClient;
let other: ApiClient;
let key: string;
const HOOK = 'https://hooks.example.com/alerts';

beforeAll(async () => {
  app = await startTestApp();
  const account = await createAccount(app.db, { login: 'alerts', email: 'alerts@example.com', balance: 10 });
  key = account.api_key;
  api = apiClient(app.url, { login: 'alerts', key });
  const stranger = await createAccount(app.db, { login: 'stranger', email: 'stranger@example.com', balance: 10 });
  other = apiClient(app.url, { key: stranger.api_key });
});

afterAll(async () => {
  await app?.close();
});

/** monitoring/add of one element next to a valid one: the element's task. */
async function addOne(element: Record<string, unknown>) {
  const res = await api.post('/v1/retail/monitoring/add', [element, { asin: 'B0000000Z9', marketplace: 'com', frequency: 'daily' }]);
  expect(res.status).toBe(200);
  return res.body.tasks[0];
}

describe('monitoring/add alerts', () => {
  it('stores the rules and alert_url and shows them on the subscription, armed and knowing nothing yet', async () => {
    const task = await addOne({ asin: 'B0000000A1', marketplace: 'com', frequency: 'hourly', alert_url: HOOK, alerts: [{ type: 'price_below', value: 19.99 }, { type: 'content_change' }] });
    expect(task.status_code).toBe(20000);
    expect(task.result[0]).toMatchObject({
      alert_url: HOOK,
      alerts: [
        { id: expect.any(Number), type: 'price_below', value: 19.99, armed: true, last_known: null, triggered_count: 0, last_triggered_at: null },
        { id: expect.any(Number), type: 'content_change', value: null, armed: true, last_known: null, triggered_count: 0, last_triggered_at: null },
      ],
    });
    const list = await api.get('/v1/retail/monitoring/list');
    expect(list.body.tasks[0].result.find((s: any) => s.asin === 'B0000000A1')).toMatchObject({ alert_url: HOOK, alerts: task.result[0].alerts });
  });

  it.each([
    ['not a list', { alerts: 'price_below' }, 'alerts', /expected array/],
    ['more than 10 rules', { alerts: Array.from({ length: 11 }, (_, i) => ({ type: 'price_below', value: i + 1 })) }, 'alerts', /at most 10 rules/],
    ['an unknown type', { alerts: [{ type: 'price_above', value: 3 }] }, 'alerts[0].type', /type must be one of price_below, /],
    ['a missing value', { alerts: [{ type: 'content_change' }, { type: 'price_below' }] }, 'alerts[1].value', /price_below needs a value/],
    ['a value out of bounds', { alerts: [{ type: 'price_drop_percent', value: 120 }] }, 'alerts[0].value', /at most 100/],
    ['a rank that is not an integer', { alerts: [{ type: 'bsr_below', value: 99.5 }] }, 'alerts[0].value', /an integer/],
    ['a value for a type that takes none', { alerts: [{ type: 'buy_box_change', value: 1 }] }, 'alerts[0].value', /takes no value/],
    ['a value of the wrong type', { alerts: [{ type: 'price_below', value: '20' }] }, 'alerts[0].value', /must be a number/],
    ['a repeated rule', { alerts: [{ type: 'bsr_below', value: 100 }, { type: 'bsr_below', value: 100 }] }, 'alerts[1]', /same rule as alerts\[0\]/],
    ['another key', { alerts: [{ type: 'content_change', valeu: 3 }] }, 'alerts[0]', /valeu/],
    ['an element that is not an object', { alerts: [3] }, 'alerts[0]', /expected object/],
  ])('refuses %s: 40501 naming the rule and key, saying why', async (_label, fields, name, why) => {
    const task = await addOne({ asin: 'B0000000A2', marketplace: 'com', frequency: 'daily', ...fields });
    expect(task.status_code).toBe(40501);
    expect(task.status_message.startsWith(`Invalid field: \`${name}\`. `)).toBe(true);
    expect(task.status_message).toMatch(why);
    expect(task.result).toBeNull();
  });

  it.each([
    ['a loopback address', 'http://127.0.0.1/hook'],
    ['a private address', 'https://10.1.2.3/hook'],
    ['a local name', 'https://localhost/hook'],
    ['credentials', 'https://user:pw@hooks.example.com/x'],
    ['another scheme', 'ftp://hooks.example.com/x'],
    ['a port outside WEBHOOK_PORTS', 'https://hooks.example.com:8443/x'],
  ])('refuses an alert_url with %s (the URL rules of postback_url): 40501 alert_url', async (_label, url) => {
    const task = await addOne({ asin: 'B0000000A3', marketplace: 'com', frequency: 'daily', alert_url: url });
    expect(task).toMatchObject({ status_code: 40501, status_message: 'Invalid field: `alert_url`.' });
  });

  it('a request whose every element is refused fails as a whole with HTTP 400 and the first code', async () => {
    const res = await api.post('/v1/retail/monitoring/add', [{ asin: 'B0000000A4', marketplace: 'com', frequency: 'daily', alerts: [{ type: 'nope' }] }]);
    expect(res.status).toBe(400);
    expect(res.body.status_code).toBe(40501);
    expect(res.body.status_message).toMatch(/^Invalid field: `alerts\[0\]\.type`\./);
  });

  it('posting again: a rule given again keeps its id and state, others are replaced; absent alerts and alert_url stay; [] and null clear', async () => {
    const first = (await addOne({ asin: 'B0000000A5', marketplace: 'com', frequency: 'daily', alert_url: HOOK, alerts: [{ type: 'price_below', value: 20 }, { type: 'bsr_below', value: 50 }] })).result[0];
    await observe(app.db, first.id, productWith('B0000000A5', { price: { amount: 25, currency: 'USD' } }));
    const second = (await addOne({ asin: 'B0000000A5', marketplace: 'com', frequency: 'hourly', alerts: [{ type: 'content_change' }, { type: 'price_below', value: 20 }] })).result[0];
    expect(second.alert_url).toBe(HOOK);
    expect(second.alerts.map((a: any) => a.type)).toEqual(['content_change', 'price_below']);
    expect(second.alerts[1]).toMatchObject({ id: first.alerts[0].id, armed: true, last_known: { price: { amount: 25, currency: 'USD' } } });
    const third = (await addOne({ asin: 'B0000000A5', marketplace: 'com', frequency: 'hourly', tag: 'x' })).result[0];
    expect(third.alerts).toEqual(second.alerts);
    const cleared = (await addOne({ asin: 'B0000000A5', marketplace: 'com', frequency: 'hourly', alerts: [], alert_url: null })).result[0];
    expect(cleared).toMatchObject({ alerts: [], alert_url: null });
  });
});

describe('change events of stored observations', () => {
  /** A subscription with one rule of `type` (and `alert_url`), driven through its script. */
  async function drive(asin: string, type: string) {
    const script = RULE_SCRIPTS[type]!;
    const sub = (await addOne({ asin, marketplace: 'com', frequency: 'daily', alert_url: HOOK, alerts: [script.rule] })).result[0];
    const fired: boolean[] = [];
    for (const step of script.steps) fired.push((await observe(app.db, sub.id, productWith(asin, step.over))).changes !== null);
    expect(fired, type).toEqual(script.steps.map((s) => s.fires));
    return sub;
  }

  it('each rule kind fires on its change, not again for the same state, and again after re-arming', async () => {
    const types = Object.keys(RULE_SCRIPTS);
    for (const [i, type] of types.entries()) await drive(`B00000C${String(i).padStart(3, '0')}`, type);
  });

  it('lists a subscription\'s events newest first with their bodies, paged by cursor; the rule shows its state', async () => {
    const sub = await drive('B0000000E1', 'price_below');
    const page1 = await api.get(`/v1/retail/monitoring/change_events?subscription_id=${sub.id}&limit=1`);
    expect(page1.status).toBe(200);
    const first = page1.body.tasks[0].result[0];
    expect(first.change_events).toHaveLength(1);
    expect(first.change_events[0]).toMatchObject({
      url: HOOK,
      event: {
        event_id: expect.stringMatching(/^[0-9a-f-]{36}$/), kind: 'change', subscription_id: sub.id, asin: 'B0000000E1', marketplace: 'com',
        rule: { id: sub.alerts[0].id, type: 'price_below', value: 20 },
        before: { price: { amount: 22, currency: 'USD' } }, after: { price: { amount: 19, currency: 'USD' } },
      },
    });
    expect(first.change_events[0].event.observed_at).toBe(first.change_events[0].event.after.observed_at);
    const page2 = (await api.get(`/v1/retail/monitoring/change_events?subscription_id=${sub.id}&limit=1&cursor=${first.next_cursor}`)).body.tasks[0].result[0];
    expect(page2.change_events[0].event).toMatchObject({ before: { price: { amount: 25 } }, after: { price: { amount: 19.5 } } });
    expect(page2.next_cursor).toBeNull();
    const list = (await api.get('/v1/retail/monitoring/list')).body.tasks[0].result.find((s: any) => s.id === sub.id);
    expect(list.alerts[0]).toMatchObject({ armed: false, triggered_count: 2, last_known: { price: { amount: 19 } }, last_triggered_at: expect.any(String) });
  });

  it('answers 404 for another account\'s subscription and 400 naming a bad cursor or id', async () => {
    const sub = (await api.get('/v1/retail/monitoring/list')).body.tasks[0].result[0];
    expect((await other.get(`/v1/retail/monitoring/change_events?subscription_id=${sub.id}`)).body).toMatchObject({ status_code: 40400 });
    expect((await api.get(`/v1/retail/monitoring/change_events?subscription_id=${sub.id}&cursor=abc`)).body).toMatchObject({ status_code: 40501, status_message: 'Invalid field: `cursor`.' });
    expect((await api.get('/v1/retail/monitoring/change_events?subscription_id=0')).body).toMatchObject({ status_code: 40501, status_message: 'Invalid field: `subscription_id`.' });
  });

  it('a subscription without alert_url records its events (listed, no URL) and hands none to deliver', async () => {
    const sub = (await addOne({ asin: 'B0000000E2', marketplace: 'com', frequency: 'daily', alerts: [{ type: 'bsr_below', value: 10 }] })).result[0];
    await observe(app.db, sub.id, productWith('B0000000E2', { bsr: { rank: 20, category: 'K', subcategories: [] } }));
    expect((await observe(app.db, sub.id, productWith('B0000000E2', { bsr: { rank: 5, category: 'K', subcategories: [] } }))).changes).toBeNull();
    const events = (await api.get(`/v1/retail/monitoring/change_events?subscription_id=${sub.id}`)).body.tasks[0].result[0].change_events;
    expect(events).toMatchObject([{ url: null, event: { after: { bsr_rank: 5 } } }]);
  });
});

describe('GraphQL', () => {
  it('addSubscriptions takes alerts and alertUrl; subscriptions show alerts and changeEvents, with the REST refusals', async () => {
    const gql = app.gql({ key });
    const add = await gql(`mutation($s: [SubscriptionInput!]!) { addSubscriptions(subscriptions: $s) { results { statusCode statusMessage subscription { id alertUrl alerts { type value armed } } } } }`, {
      s: [
        { asin: 'B0000000G1', marketplace: 'com', frequency: 'daily', alertUrl: HOOK, alerts: [{ type: 'price_drop_percent', value: 10 }] },
        { asin: 'B0000000G2', marketplace: 'com', frequency: 'daily', alerts: [{ type: 'price_below' }] },
      ],
    });
    const [ok, refused] = add.body.data.addSubscriptions.results;
    expect(ok).toMatchObject({ statusCode: 20000, subscription: { alertUrl: HOOK, alerts: [{ type: 'price_drop_percent', value: 10, armed: true }] } });
    expect(refused).toMatchObject({ statusCode: 40501, subscription: null });
    expect(refused.statusMessage).toMatch(/^Invalid field: `alerts\[0\]\.value`\. price_below needs a value/);
    const id = ok.subscription.id;
    for (const amount of [100, 80, 80]) await observe(app.db, id, productWith('B0000000G1', { price: { amount, currency: 'USD' } }));
    const read = await gql(`{ subscriptions(first: 100) { edges { node { id alerts { armed triggeredCount lastKnown { price { amount } } } changeEvents(first: 5) { edges { cursor node { ruleType ruleValue url before { price { amount } } after { price { amount } } } } pageInfo { hasNextPage } } } } } }`);
    expect(read.body.errors).toBeUndefined();
    const node = read.body.data.subscriptions.edges.map((e: any) => e.node).find((n: any) => n.id === id);
    expect(node.alerts).toEqual([{ armed: true, triggeredCount: 1, lastKnown: { price: { amount: 80 } } }]);
    expect(node.changeEvents.edges.map((e: any) => e.node)).toEqual([{ ruleType: 'price_drop_percent', ruleValue: 10, url: HOOK, before: { price: { amount: 100 } }, after: { price: { amount: 80 } } }]);
    expect(node.changeEvents.pageInfo.hasNextPage).toBe(false);
    const backwards = await gql(`{ subscriptions(first: 1) { edges { node { changeEvents(last: 1) { edges { cursor } } } } } }`);
    expect(backwards.body.errors[0]).toMatchObject({ extensions: { code: 40501 } });
  });

  it('reads the rules and change events of a whole page of subscriptions with one query each (no N+1)', async () => {
    const counting = countingDb(app.dbUrl);
    try {
      const gql = gqlClient(app.yoga({ db: counting }), { key });
      const measure = async (n: number) => {
        counting.statements.length = 0;
        const res = await gql('query($n: Int) { subscriptions(first: $n) { edges { node { alerts { id armed } changeEvents(first: 3) { edges { node { ruleType } } } } } } }', { n });
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data.subscriptions.edges).toHaveLength(n);
        return ['alert_rules', 'webhook_events'].map((table) => counting.statements.filter((sql) => sql.includes(`"${table}"`) || sql.includes(` ${table} `)).length);
      };
      const total = (await app.prisma.subscription.count({ where: { account: { login: 'alerts' } } }));
      expect(total).toBeGreaterThan(10);
      expect(await measure(1)).toEqual([1, 1]);
      expect(await measure(total)).toEqual([1, 1]);
    } finally {
      await counting.close();
    }
  });
});
