/**
 * Keyword subscriptions over HTTP against buildApp on a real embedded PostgreSQL (PGlite):
 * monitoring/add's keyword form and its validation (hostile text in every new field), list and
 * delete showing keyword subscriptions beside product ones, and the money and rank alerts of keyword
 * runs driven through the run functions the monitor's activities call (core/monitoring-runs.ts
 * `startMonitoringRun`, the search read's `storeSearchObservation`, core/keyword-monitoring.ts
 * `deliverKeywordRun`): charged per page at the monitoring search price, a rank rule firing once,
 * not again, re-armed and firing again; retries idempotent; a refunded run delivers nothing; the
 * reconciler refunds a run whose workflow ended; pausing for balance and resuming on top-up take
 * keyword subscriptions with the product ones; GraphQL adds, reads and deletes them. Temporal is replaced at its boundary by a launcher that records what the API asked of the
 * monitors; keyword-monitoring.test.ts runs the real workflow, browser and replay pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, topUp } from '../../api/admin/accounts.js';
import type { MonitorLauncher, MonitorTarget } from '../../api/services/monitor-launcher.js';
import type { Db } from '../../core/db/db.js';
import { deliverKeywordRun } from '../../core/keyword-monitoring.js';
import { createLogger } from '../../core/logger.js';
import { reconcileMonitoringRuns } from '../../core/monitoring-reconciler.js';
import { MonitoringRunError, refundMonitoringRun, startMonitoringRun } from '../../core/monitoring-runs.js';
import { PLANS } from '../../core/pricing.js';
import type { SearchItem, SearchResults } from '../../core/search.js';
import { storeSearchObservation } from '../../core/search-observations.js';
import { BAD_TEXTS } from '../support/fuzz.js';
import { apiClient, type ApiClient } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PAGE_PRICE = PLANS.standard!.rates.search_monitoring;
const TRACKED = 'B0TRACKED1';
const OTHER = 'B0TRACKED2';

let app: TestApp;
let db: Db;
let baseUrl: string;
const started: MonitorTarget[] = [];
const configured: MonitorTarget[] = [];
const stopped: number[] = [];
const monitors: MonitorLauncher = {
  start: async (target) => { started.push(target); },
  configure: async (target) => { configured.push(target); },
  resume: async () => undefined,
  stop: async (id) => { stopped.push(id); },
};

async function account(login: string, balance: number): Promise<{ id: number; api: ApiClient }> {
  const created = await createAccount(db, { login, email: `${login}@example.com`, balance });
  return { id: created.id, api: apiClient(baseUrl, { login, key: created.api_key }) };
}

let clock = Date.UTC(2026, 10, 1);
/** One results page of `keyword`: 20 filler cards with `tracked` at organic rank `rank` (null: absent), `sponsored` also in a sponsored slot. */
function resultsPage(keyword: string, page: number, tracked: { asin: string; rank: number | null; sponsored?: boolean }[], at: string): SearchResults {
  const asins = Array.from({ length: 20 }, (_, i) => `B0FILL${String(page).padStart(2, '0')}${String(i).padStart(2, '0')}`);
  const cards: { asin: string; sponsored: boolean }[] = asins.map((asin) => ({ asin, sponsored: false }));
  for (const t of tracked) if (t.rank !== null) cards.splice(t.rank - 1, 0, { asin: t.asin, sponsored: false });
  for (const t of tracked) if (t.sponsored) cards.unshift({ asin: t.asin, sponsored: true });
  let organic = 0;
  const items: SearchItem[] = cards.map((c, i) => ({
    position: i + 1, organic_position: c.sponsored ? null : ++organic, sponsored: c.sponsored, asin: c.asin, url: `https://www.amazon.com/dp/${c.asin}`,
    title: `Item ${c.asin}`, brand: null, price: { amount: 10 + i, currency: 'USD' }, list_price: null, rating: 4.5, ratings_count: 100, bought_past_month: null,
    badges: [], prime: true, coupon: null, delivery: null, image_url: null, variants_count: null,
  }));
  return {
    keyword, marketplace: 'com', page, url: `https://www.amazon.com/s?k=${encodeURIComponent(keyword)}${page > 1 ? `&page=${page}` : ''}`,
    observed_at: at, parser_version: 'test', status: items.length ? 'ok' : 'no_results', total_results: items.length ? 1000 : null,
    results_text: null, items, quality: { version: 1, cards_seen: items.length, cards_read: items.length, missing: [] },
  };
}

let runs = 0;
/**
 * One keyword run as the monitor makes it: reserve `pages`, store the pages read (page 1's
 * `observed_at` shared), deliver them. `ranks[p]` places the tracked ASIN on page p + 1.
 * @returns the change events to deliver, or the error the delivery threw.
 */
async function run(subscriptionId: number, keyword: string, pages: number, onPages: Parameters<typeof resultsPage>[2][]) {
  const runKey = `m:${subscriptionId}:test-run:${++runs}`;
  expect(await startMonitoringRun(db, { subscriptionId, runKey, reserve: true, pages })).toBe('reserved');
  clock += 3_600_000;
  const at = new Date(clock).toISOString();
  const ids: bigint[] = [];
  for (const [i, tracked] of onPages.entries()) ids.push(await storeSearchObservation(db, resultsPage(keyword, i + 1, tracked, at)));
  return { runKey, ids, changes: await deliverKeywordRun(db, { subscriptionId, runKey, reservedPages: pages, searchObservationIds: ids }) };
}

beforeAll(async () => {
  app = await startTestApp({ monitors });
  ({ db, url: baseUrl } = app);
});

afterAll(async () => {
  await app?.close();
});

describe('monitoring/add, list and delete of keyword subscriptions', () => {
  it('adds a keyword subscription beside a product one; the same keyword in another case updates it; list and delete show it', async () => {
    const { api } = await account('kw-crud', 10);
    const added = await api.post('/v1/retail/monitoring/add', [
      { keyword: '  Electric   Kettle ', marketplace: 'com', pages: 2, frequency: 'daily', track_asins: [TRACKED.toLowerCase(), TRACKED], tag: 't1',
        alerts: [{ type: 'rank_below', value: 10, asin: TRACKED }] },
      { asin: TRACKED, marketplace: 'com', frequency: 'daily' },
    ]);
    expect(added.status).toBe(200);
    const [keywordTask, productTask] = added.body.tasks;
    expect(keywordTask.status_code).toBe(20000);
    const sub = keywordTask.result[0];
    expect(sub).toMatchObject({ kind: 'search', keyword: 'Electric Kettle', marketplace: 'com', pages: 2, track_asins: [TRACKED], frequency: 'daily', tag: 't1', status: 'active' });
    expect(sub.asin).toBeUndefined();
    expect(sub.alerts).toEqual([expect.objectContaining({ type: 'rank_below', value: 10, asin: TRACKED, armed: true, last_known: null })]);
    expect(productTask.result[0]).toMatchObject({ asin: TRACKED, marketplace: 'com' });
    expect(productTask.result[0].kind).toBeUndefined();
    expect(started.find((t) => t.subscriptionId === sub.id)).toMatchObject({ asin: '', search: { keyword: 'Electric Kettle', pages: 2 }, marketplace: 'com' });

    const again = await api.post('/v1/retail/monitoring/add', [{ keyword: 'electric kettle', marketplace: 'com', pages: 3, frequency: 'hourly' }]);
    expect(again.body.tasks[0].result[0]).toMatchObject({ id: sub.id, keyword: 'Electric Kettle', pages: 3, frequency: 'hourly', track_asins: [TRACKED], tag: 't1' });
    expect(again.body.tasks[0].result[0].alerts).toHaveLength(1);
    expect(configured.at(-1)).toMatchObject({ subscriptionId: sub.id, search: { keyword: 'Electric Kettle', pages: 3 } });
    // Dropping a tracked ASIN drops its rules.
    const retracked = await api.post('/v1/retail/monitoring/add', [{ keyword: 'Electric Kettle', marketplace: 'com', frequency: 'hourly', track_asins: [OTHER] }]);
    expect(retracked.body.tasks[0].result[0]).toMatchObject({ track_asins: [OTHER], alerts: [] });

    const listed = await api.get('/v1/retail/monitoring/list');
    const rows = listed.body.tasks[0].result;
    expect(rows).toHaveLength(2);
    expect(rows.find((r: { id: number }) => r.id === sub.id)).toMatchObject({ kind: 'search', keyword: 'Electric Kettle', latest_results: null });
    expect(rows.find((r: { id: number }) => r.id !== sub.id)).toMatchObject({ asin: TRACKED, latest_observation: null });

    const deleted = await api.post('/v1/retail/monitoring/delete', [{ keyword: 'ELECTRIC kettle', marketplace: 'com' }, { keyword: 'Electric Kettle', marketplace: 'de' }, { id: sub.id, asin: TRACKED }]);
    expect(deleted.body.tasks.map((t: { status_code: number }) => t.status_code)).toEqual([20000, 40400, 40400]);
    expect(deleted.body.tasks[0].result[0]).toMatchObject({ id: sub.id, kind: 'search' });
    expect(stopped).toContain(sub.id);
    expect((await api.get('/v1/retail/monitoring/list')).body.tasks[0].result).toHaveLength(1);
  });

  it('refuses what the keyword form does not allow, naming the field, and charges nothing', async () => {
    const { id, api } = await account('kw-invalid', 10);
    const base = { keyword: 'kettle', marketplace: 'com', frequency: 'daily' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, asin: TRACKED }, 'keyword'],
      [{ ...base, keyword: '   ' }, 'keyword'],
      [{ ...base, keyword: 'k'.repeat(201) }, 'keyword'],
      [{ ...base, keyword: 'a\u0001b' }, 'keyword'],
      [{ ...base, pages: 0 }, 'pages'],
      [{ ...base, pages: 6 }, 'pages'],
      [{ ...base, pages: 1.5 }, 'pages'],
      [{ ...base, track_asins: Array.from({ length: 51 }, (_, i) => `B0TRACK${String(i).padStart(3, '0')}`) }, 'track_asins'],
      [{ ...base, track_asins: ['not an asin'] }, 'track_asins'],
      [{ ...base, track_asins: TRACKED }, 'track_asins'],
      [{ ...base, track_asins: [TRACKED], alerts: [{ type: 'rank_below', value: 5 }] }, 'alerts[0].asin'],
      [{ ...base, track_asins: [TRACKED], alerts: [{ type: 'rank_below', value: 5, asin: OTHER }] }, 'alerts[0].asin'],
      [{ ...base, alerts: [{ type: 'rank_below', value: 5, asin: TRACKED }] }, 'alerts[0].asin'],
      [{ ...base, track_asins: [TRACKED], alerts: [{ type: 'price_below', value: 5 }] }, 'alerts[0].type'],
      [{ ...base, track_asins: [TRACKED], alerts: [{ type: 'rank_above', value: 1, asin: TRACKED }] }, 'alerts[0].value'],
      [{ ...base, track_asins: [TRACKED], alerts: [{ type: 'sponsored_change', value: 2, asin: TRACKED }] }, 'alerts[0].value'],
      [{ asin: TRACKED, marketplace: 'com', frequency: 'daily', alerts: [{ type: 'rank_below', value: 5 }] }, 'alerts[0].type'],
      [{ asin: TRACKED, marketplace: 'com', frequency: 'daily', alerts: [{ type: 'price_below', value: 5, asin: TRACKED }] }, 'alerts[0].asin'],
      [{ asin: TRACKED, marketplace: 'com', frequency: 'daily', pages: 2 }, 'pages'],
      [{ asin: TRACKED, marketplace: 'com', frequency: 'daily', track_asins: [TRACKED] }, 'track_asins'],
    ];
    for (const [element, field] of cases) {
      const answer = await api.post('/v1/retail/monitoring/add', [{ asin: TRACKED, marketplace: 'de', frequency: 'daily' }, element]);
      expect(answer.body.tasks[1].status_code, `${JSON.stringify(element).slice(0, 120)}`).toBe(40501);
      expect(answer.body.tasks[1].status_message, JSON.stringify(element).slice(0, 120)).toMatch(new RegExp(`^Invalid field: \`${field.replace(/[[\].]/g, '\\$&')}\``));
    }
    // Hostile text in every new field of the keyword form.
    for (const bad of BAD_TEXTS) {
      const fields: [Record<string, unknown>, string][] = [
        [{ ...base, keyword: bad.value }, 'keyword'],
        [{ ...base, track_asins: [bad.value] }, 'track_asins'],
        [{ ...base, pages: bad.value }, 'pages'],
        [{ ...base, track_asins: [TRACKED], alerts: [{ type: 'rank_change', value: 2, asin: bad.value }] }, bad.kind === 'unstorable' ? 'alerts' : 'alerts[0].asin'],
        [{ ...base, tag: bad.value }, 'tag'],
      ];
      for (const [element, field] of fields) {
        const answer = await api.post('/v1/retail/monitoring/add', [element]);
        const label = `${field}: ${bad.label}`;
        expect(answer.status, label).toBeLessThan(500);
        if (bad.kind === 'control' && field === 'tag') continue; // a tag may hold control characters
        expect(answer.body.status_code, label).toBe(40501);
        expect(answer.body.status_message, label).toMatch(new RegExp(`^Invalid field: \`${field.replace(/[[\].]/g, '\\$&')}\``));
      }
      const deleted = await api.post('/v1/retail/monitoring/delete', [{ keyword: bad.value, marketplace: 'com' }]);
      expect(deleted.status, `delete keyword: ${bad.label}`).toBe(400);
      expect(deleted.body.status_message).toMatch(/^Invalid field: `keyword`/);
    }
    const money = await accountMoney(app.prisma, { id });
    expect(money.balance).toBe(10);
    expect(money.entries).toEqual([expect.objectContaining({ kind: 'topup' })]);
  });
});

describe('keyword runs: money and rank alerts', () => {
  it('charges each run per page at the monitoring search price; a rank rule fires once, does not repeat, re-arms and fires again', async () => {
    const { id: accountId, api } = await account('kw-runs', 1);
    const added = await api.post('/v1/retail/monitoring/add', [{
      keyword: 'Kettle', marketplace: 'com', pages: 2, frequency: 'hourly', track_asins: [TRACKED, OTHER], alert_url: 'https://hooks.example.com/rank',
      alerts: [{ type: 'rank_below', value: 25, asin: TRACKED }, { type: 'sponsored_change', asin: OTHER }],
    }]);
    const sub = added.body.tasks[0].result[0];
    // Page 2 ranks count on after the 20 organic items of page 1 (plus the tracked ASIN when it is there).
    const script: { tracked: Parameters<typeof resultsPage>[2][]; fired: string[] }[] = [
      { tracked: [[{ asin: TRACKED, rank: 3 }], []], fired: [] },
      { tracked: [[], [{ asin: TRACKED, rank: 10 }]], fired: ['rank_below'] }, // 20 + 10 = 30: worse than 25
      { tracked: [[], []], fired: [] }, // absent: still below, no repeat
      { tracked: [[{ asin: TRACKED, rank: 1 }, { asin: OTHER, rank: 4, sponsored: true }], []], fired: ['sponsored_change'] }, // rank 1 re-arms rank_below
      { tracked: [[], [{ asin: TRACKED, rank: 2 }]], fired: ['sponsored_change'] }, // 20 + 2 = 22: not below 25; OTHER lost its sponsored slot
      { tracked: [[], []], fired: ['rank_below'] }, // absent: fires again
    ];
    const fired: string[][] = [];
    for (const step of script) {
      const { changes } = await run(sub.id, 'Kettle', 2, step.tracked);
      const events = changes ? await app.prisma.webhookEvent.findMany({ where: { id: { in: changes.eventIds } }, orderBy: { alertRuleId: 'asc' } }) : [];
      fired.push(events.map((e) => (JSON.parse(e.body!) as { rule: { type: string } }).rule.type));
    }
    expect(fired).toEqual(script.map((s) => s.fired));
    const events = await app.prisma.webhookEvent.findMany({ where: { subscriptionId: sub.id, kind: 'change' }, orderBy: { createdAt: 'asc' } });
    const first = JSON.parse(events[0]!.body!);
    expect(first).toMatchObject({
      kind: 'change', subscription_id: sub.id, asin: TRACKED, marketplace: 'com', keyword: 'Kettle',
      rule: { type: 'rank_below', value: 25, asin: TRACKED }, before: { organic_rank: 3, sponsored: false }, after: { organic_rank: 30, sponsored: false },
    });
    expect(Object.keys(first)).toEqual(['event_id', 'kind', 'subscription_id', 'asin', 'marketplace', 'keyword', 'rule', 'before', 'after', 'observed_at']);
    expect(events.every((e) => e.url === 'https://hooks.example.com/rank' && e.searchObservationId !== null)).toBe(true);

    const money = await accountMoney(app.prisma, { id: accountId });
    const charged = Math.round(script.length * 2 * PAGE_PRICE * 1e6) / 1e6;
    expect(money.balance).toBeCloseTo(1 - charged, 9);
    expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
    expect(money.entries.filter((e) => e.kind === 'monitoring').map((e) => e.amount)).toEqual(script.map(() => -2 * PAGE_PRICE));
    expect(PAGE_PRICE).toBe(2 * PLANS.standard!.rates.monitoring);

    // monitoring/list shows the last run's pages; their rows belong to the subscription now.
    const listed = (await api.get('/v1/retail/monitoring/list')).body.tasks[0].result[0];
    expect(listed.latest_results.map((r: SearchResults) => [r.keyword, r.page])).toEqual([['Kettle', 1], ['Kettle', 2]]);
    expect(listed.latest_results[0].observed_at).toBe(listed.latest_results[1].observed_at);
    expect(listed.alerts.map((a: { type: string; triggered_count: number }) => [a.type, a.triggered_count])).toEqual([['rank_below', 2], ['sponsored_change', 2]]);
    expect(await app.prisma.searchObservation.count({ where: { subscriptionId: sub.id } })).toBe(script.length * 2);
  });

  it('a retried delivery returns the same events and charges nothing more; a refunded run delivers nothing; pages not read are refunded', async () => {
    const { id: accountId, api } = await account('kw-retry', 1);
    const added = await api.post('/v1/retail/monitoring/add', [{
      keyword: 'Teapot', marketplace: 'com', pages: 3, frequency: 'hourly', track_asins: [TRACKED], alert_url: 'https://hooks.example.com/rank',
      alerts: [{ type: 'rank_above', value: 5, asin: TRACKED }],
    }]);
    const sub = added.body.tasks[0].result[0];
    await run(sub.id, 'Teapot', 3, [[{ asin: TRACKED, rank: 9 }], [], []]);
    const fired = await run(sub.id, 'Teapot', 3, [[{ asin: TRACKED, rank: 2 }], [], []]);
    expect(fired.changes?.eventIds).toHaveLength(1);
    const again = await deliverKeywordRun(db, { subscriptionId: sub.id, runKey: fired.runKey, reservedPages: 3, searchObservationIds: fired.ids });
    expect(again).toEqual(fired.changes);
    expect(await refundMonitoringRun(db, { runKey: fired.runKey })).toBe('delivered');

    // A run whose page failed: refunded; a late delivery of what it read is refused, nothing attached.
    const runKey = `m:${sub.id}:test-run:${++runs}`;
    expect(await startMonitoringRun(db, { subscriptionId: sub.id, runKey, reserve: true, pages: 3 })).toBe('reserved');
    const orphan = await storeSearchObservation(db, resultsPage('Teapot', 1, [{ asin: TRACKED, rank: 1 }], new Date(clock += 3_600_000).toISOString()));
    expect(await refundMonitoringRun(db, { runKey })).toBe('refunded');
    expect(await refundMonitoringRun(db, { runKey })).toBe('refunded');
    await expect(deliverKeywordRun(db, { subscriptionId: sub.id, runKey, reservedPages: 3, searchObservationIds: [orphan] })).rejects.toBeInstanceOf(MonitoringRunError);
    expect((await app.prisma.searchObservation.findUniqueOrThrow({ where: { id: orphan } })).subscriptionId).toBeNull();

    // Page 1 without results: the run reads no further page; the two pages not read are refunded.
    await run(sub.id, 'Teapot', 3, [[]]);

    const money = await accountMoney(app.prisma, { id: accountId });
    const perRun = 3 * PAGE_PRICE;
    expect(money.balance).toBeCloseTo(1 - 2 * perRun - PAGE_PRICE, 9);
    expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
    const reservations = await app.prisma.ledgerEntry.findMany({ where: { accountId, kind: 'monitoring' }, orderBy: { id: 'asc' } });
    expect(reservations.map((r) => [r.settlement, r.searchObservationIds.length])).toEqual([['kept', 3], ['kept', 3], ['refunded', 0], ['kept', 1]]);
    const refunds = await app.prisma.ledgerEntry.findMany({ where: { accountId, kind: 'refund' }, orderBy: { id: 'asc' } });
    expect(refunds.map((r) => [r.runKey?.replace(/^.*:/, ''), Number(r.amount)])).toEqual([['refund', perRun], ['unread', 2 * PAGE_PRICE]]);
  });

  it('GraphQL: addSubscriptions takes the keyword form; subscriptions show it with its rank rules and their change events; deleteSubscriptions names it by keyword', async () => {
    const created = await createAccount(db, { login: 'kw-gql', email: 'kw-gql@example.com', balance: 1 });
    const gql = app.gql({ key: created.api_key });
    const add = await gql(`mutation($s: [SubscriptionInput!]!) { addSubscriptions(subscriptions: $s) { results { statusCode statusMessage subscription { id kind asin keyword pages trackAsins alerts { type value asin armed } } } } }`, {
      s: [
        { keyword: 'Mug', marketplace: 'com', frequency: 'daily', pages: 2, trackAsins: [TRACKED], alertUrl: 'https://hooks.example.com/g', alerts: [{ type: 'rank_above', value: 3, asin: TRACKED }] },
        { keyword: 'Mug', marketplace: 'com', frequency: 'daily', trackAsins: [TRACKED], alerts: [{ type: 'bsr_below', value: 3 }] },
      ],
    });
    expect(add.body.errors).toBeUndefined();
    const [ok, refused] = add.body.data.addSubscriptions.results;
    expect(ok).toMatchObject({ statusCode: 20000, subscription: { kind: 'search', asin: null, keyword: 'Mug', pages: 2, trackAsins: [TRACKED], alerts: [{ type: 'rank_above', value: 3, asin: TRACKED, armed: true }] } });
    expect(refused.statusCode).toBe(40501);
    expect(refused.statusMessage).toMatch(/^Invalid field: `alerts\[0\]\.type`\. bsr_below is a rule of product subscriptions/);
    const id = ok.subscription.id;
    await run(id, 'Mug', 2, [[{ asin: TRACKED, rank: 9 }], []]);
    await run(id, 'Mug', 2, [[{ asin: TRACKED, rank: 1 }], []]);
    const read = await gql(`{ subscriptions(first: 10) { edges { node { id keyword alerts { triggeredCount lastKnown { organicRank sponsored } } changeEvents(first: 5) { edges { node { ruleType before { organicRank } after { organicRank sponsored } } } } } } } }`);
    expect(read.body.errors).toBeUndefined();
    const node = read.body.data.subscriptions.edges.map((e: { node: { id: number } }) => e.node).find((n: { id: number }) => n.id === id);
    expect(node.alerts).toEqual([{ triggeredCount: 1, lastKnown: { organicRank: 1, sponsored: false } }]);
    expect(node.changeEvents.edges.map((e: { node: unknown }) => e.node)).toEqual([{ ruleType: 'rank_above', before: { organicRank: 9 }, after: { organicRank: 1, sponsored: false } }]);
    const removed = await gql(`mutation { deleteSubscriptions(subscriptions: [{ keyword: "MUG", marketplace: "com" }]) { results { statusCode subscription { id asin keyword } } } }`);
    expect(removed.body.data.deleteSubscriptions.results).toEqual([{ statusCode: 20000, subscription: { id, asin: null, keyword: 'Mug' } }]);
  });

  it('the reconciler refunds an open keyword run whose workflow run ended, once, and leaves a delivered one kept', async () => {
    const { id: accountId, api } = await account('kw-reconcile', 1);
    const sub = (await api.post('/v1/retail/monitoring/add', [{ keyword: 'Sieve', marketplace: 'com', pages: 2, frequency: 'hourly' }])).body.tasks[0].result[0];
    const delivered = await run(sub.id, 'Sieve', 2, [[], []]);
    const open = `m:${sub.id}:ended-run:1`;
    expect(await startMonitoringRun(db, { subscriptionId: sub.id, runKey: open, reserve: true, pages: 2 })).toBe('reserved');
    // Both reservations are past the grace period; Temporal says their workflow runs have closed.
    const runs = { runState: async () => 'closed' as const };
    const logger = createLogger('silent');
    const first = await reconcileMonitoringRuns({ db, runs, logger }, { graceMs: 0 });
    expect(first).toMatchObject({ refunded: 1, errors: 0 });
    expect((await reconcileMonitoringRuns({ db, runs, logger }, { graceMs: 0 })).refunded).toBe(0);
    const entries = await app.prisma.ledgerEntry.findMany({ where: { runKey: { in: [delivered.runKey, open] } }, orderBy: { id: 'asc' } });
    expect(entries.map((e) => [e.runKey, e.settlement])).toEqual([[delivered.runKey, 'kept'], [open, 'refunded']]);
    const money = await accountMoney(app.prisma, { id: accountId });
    expect(money.balance).toBeCloseTo(1 - 2 * PAGE_PRICE, 9);
    expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
  });

  it('a run the balance cannot pay pauses the account\'s keyword and product subscriptions, listed paused; a top-up resumes them and signals their monitors', async () => {
    const { api } = await account('kw-pause', 2 * PAGE_PRICE + 0.0001);
    const added = await api.post('/v1/retail/monitoring/add', [
      { keyword: 'Ladle', marketplace: 'com', pages: 2, frequency: 'hourly' },
      { asin: TRACKED, marketplace: 'com', frequency: 'hourly' },
    ]);
    const [keywordSub, productSub] = added.body.tasks.map((t: { result: { id: number }[] }) => t.result[0]!.id);
    await run(keywordSub, 'Ladle', 2, [[], []]);
    expect(await startMonitoringRun(db, { subscriptionId: keywordSub, runKey: `m:${keywordSub}:test-run:${++runs}`, reserve: true, pages: 2 })).toBe('paused_balance');
    const paused = (await api.get('/v1/retail/monitoring/list')).body.tasks[0].result;
    expect(paused.map((r: { id: number; status: string }) => [r.id, r.status])).toEqual([[keywordSub, 'paused_balance'], [productSub, 'paused_balance']]);
    const resumed: number[][] = [];
    await topUp(db, { login: 'kw-pause', amount: 1 }, { monitors: { resume: async (ids) => { resumed.push(ids); } } });
    expect(resumed).toEqual([[keywordSub, productSub]]);
    const active = (await api.get('/v1/retail/monitoring/list')).body.tasks[0].result;
    expect(active.map((r: { status: string }) => r.status)).toEqual(['active', 'active']);
    expect(await startMonitoringRun(db, { subscriptionId: keywordSub, runKey: `m:${keywordSub}:test-run:${++runs}`, reserve: true, pages: 2 })).toBe('reserved');
  });

  it('a new keyword subscription starts paused when the balance cannot pay a run of its pages', async () => {
    const { api } = await account('kw-poor', 3 * PAGE_PRICE);
    const added = await api.post('/v1/retail/monitoring/add', [
      { keyword: 'cheap', marketplace: 'com', pages: 3, frequency: 'daily' },
      { keyword: 'dear', marketplace: 'com', pages: 4, frequency: 'daily' },
    ]);
    expect(added.body.tasks.map((t: { result: { status: string }[] }) => t.result[0]!.status)).toEqual(['active', 'paused_balance']);
  });
});
