/**
 * Keyword monitoring end to end over the whole stack (search-page-contract.md "API" Monitoring):
 * the real Temporal dev server runs the subscription's durable `monitorSubscription` workflow on
 * its timer (MONITORING_INTERVALS of seconds: the project's way to run a timer loop without
 * sleeping in the test), real Chromium reads the results pages from a replay folder this test
 * writes (saved search pages of ../shared/fixtures/search, rows of kind `search`; page 1 changes
 * between runs), PGlite stores everything, and a local receiver (WEBHOOK_ALLOWLIST) takes the
 * alerts:
 * - each run is charged per page at the monitoring search price, the ledger exact;
 * - a `rank_below` rule on a tracked ASIN fires when it leaves the pages, does not repeat on the
 *   next run, re-arms when it is back, and fires again; each event is POSTed signed, with
 *   `X-Event-Id`, and logged in the delivery log;
 * - a run whose page 1 is a robot check on every attempt is refunded and delivers nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { monitorWorkflowId } from '../../core/domain/subscription-messages.js';
import { webhookWorkflowId } from '../../core/domain/webhook-messages.js';
import { PLANS } from '../../core/pricing.js';
import type { SearchItem } from '../../core/search.js';
import { repoRoot, sharedSearchPagesDir } from '../support/env.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { describeNeeding, savedSearchPages } from '../support/prerequisites.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';
import { signatureValid, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const KEYWORD = 'steel kettle';
const PAGE_PRICE = PLANS.standard!.rates.search_monitoring;
const SAVED = sharedSearchPagesDir;
const LABELS = path.join(repoRoot, 'test/golden/search-labels/a');
/** Page 1 holds the tracked ASIN (A) or not (B); page 2 (C) never does. */
const A = 'com_search_laptop_2024';
const B = 'com_search_phone_2024';
const C = 'com_search_tv_2019';

const itemsOf = (name: string) => (JSON.parse(fs.readFileSync(path.join(LABELS, `${name}.json`), 'utf8')) as { items: SearchItem[] }).items;
/** An organic item of A that B and C do not show: it is absent from a run whose page 1 is B. */
const tracked = savedSearchPages.missing ? undefined! : (() => {
  const elsewhere = new Set([...itemsOf(B), ...itemsOf(C)].map((i) => i.asin));
  const sponsoredInA = new Set(itemsOf(A).filter((i) => i.sponsored).map((i) => i.asin));
  const item = itemsOf(A).find((i) => !i.sponsored && !elsewhere.has(i.asin) && !sponsoredInA.has(i.asin));
  if (!item) throw new Error(`no ASIN of ${A} is missing from ${B} and ${C}`);
  return item;
})();
/** Worse than this is "below"; on A the tracked ASIN is well within it. */
const THRESHOLD = tracked.organic_position! + 10;

let pages: string;
let running: TestStack;
let receiver: WebhookReceiver;
let api: ApiClient;
let secret: string;
let accountId: number;

/** Serves `source` (a saved page's name, or raw HTML) as page 1 of the keyword from now on. */
function servePage1(source: string): void {
  const html = source.startsWith('<') ? source : fs.readFileSync(path.join(SAVED, `${source}.html`));
  fs.writeFileSync(path.join(pages, 'kw_p1.html'), html);
}

beforeAll(async () => {
  if (savedSearchPages.missing) return;
  receiver = await startWebhookReceiver();
  pages = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-keyword-pages-'));
  fs.writeFileSync(path.join(pages, 'MANIFEST.tsv'), [
    'file\tmarketplace\tasin\tkind\tkeyword\tpage\tapprox_year',
    `kw_p1.html\tcom\t\tsearch\t${KEYWORD}\t1\t2026`,
    `kw_p2.html\tcom\t\tsearch\t${KEYWORD}\t2\t2026`,
    '',
  ].join('\n'));
  servePage1(A);
  fs.copyFileSync(path.join(SAVED, `${C}.html`), path.join(pages, 'kw_p2.html'));
  running = await startTestStack({
    pages,
    env: {
      WEBHOOK_ALLOWLIST: `127.0.0.1:${receiver.port}`, WEBHOOK_RETRY_DELAYS: '1s', WEBHOOK_TIMEOUT: '2s',
      MONITORING_INTERVALS: 'hourly=3s', SOURCE_READ_ATTEMPTS: '1', SOURCE_ATTEMPTS: '2',
    },
  });
  const account = await createAccount(running.stack.db, { login: 'keyword-watcher', email: 'kw@example.com', balance: 1 });
  accountId = account.id;
  secret = (await running.stack.db.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).webhookSecret;
  api = apiClient(running.stack.api.url, { login: 'keyword-watcher', key: account.api_key });
}, 240_000);

afterAll(async () => {
  await running?.stop();
  await receiver?.close();
  if (pages) fs.rmSync(pages, { recursive: true, force: true });
});

describeNeeding([savedSearchPages], 'keyword monitoring over the whole stack', () => {
  it('runs on its timer, charged per page; a rank rule fires, does not repeat, re-arms and fires again, signed and logged; a failed page is refunded', async () => {
    const prisma = running.stack.db.prisma;
    const added = await api.post('/v1/retail/monitoring/add', [{
      keyword: KEYWORD, marketplace: 'com', pages: 2, frequency: 'hourly', track_asins: [tracked.asin],
      alerts: [{ type: 'rank_below', value: THRESHOLD, asin: tracked.asin }], alert_url: `${receiver.url}/rank`,
    }]);
    expect(added.body.tasks[0].status_code).toBe(20000);
    const id: number = added.body.tasks[0].result[0].id;
    const reservations = () => prisma.ledgerEntry.findMany({ where: { subscriptionId: id, kind: 'monitoring' }, orderBy: { id: 'asc' } });
    const settled = async (n: number) => {
      await waitFor(async () => (await reservations()).filter((r) => r.settlement !== null).length >= n, 90_000, 100);
    };
    // Page 1 of run n + 1 is written once run n is settled (runs are 3 s apart).
    const script = [A, B, B, A, B];
    for (const [n, next] of [...script.slice(1), null].entries()) {
      await settled(n + 1);
      servePage1(next ?? '<!DOCTYPE html><html lang="en-us"><head><title dir="ltr">Robot Check</title></head><body><p class="a-last">Sorry, we just need to make sure you\'re not a robot.</p><form action="/errors/validateCaptcha"><input id="captchacharacters" name="field-keywords"></form></body></html>');
    }
    await settled(script.length + 1);
    await api.post('/v1/retail/monitoring/delete', [{ keyword: KEYWORD.toUpperCase(), marketplace: 'com' }]);

    // Runs: five delivered (two pages each, sharing page 1's time), the sixth refunded.
    const runs = await reservations();
    expect(runs.slice(0, script.length + 1).map((r) => [r.settlement, r.searchObservationIds.length])).toEqual([
      ...script.map(() => ['kept', 2]), ['refunded', 0],
    ]);
    const money = await accountMoney(prisma, { id: accountId });
    const kept = runs.filter((r) => r.settlement === 'kept').length;
    expect(money.balance).toBeCloseTo(1 - kept * 2 * PAGE_PRICE, 9);
    expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
    expect(money.entries.filter((e) => e.kind === 'monitoring').every((e) => Math.abs(e.amount + 2 * PAGE_PRICE) < 1e-9)).toBe(true);
    expect(money.entries.filter((e) => e.kind === 'refund').map((e) => e.amount)).toEqual(runs.filter((r) => r.settlement === 'refunded').map(() => 2 * PAGE_PRICE));
    // The pages each run paid for (the subscription's deliveries until its delete set them free).
    const stored = await prisma.searchObservation.findMany({ where: { id: { in: runs.flatMap((r) => r.searchObservationIds) } }, orderBy: { id: 'asc' } });
    expect(stored.map((o) => [o.keywordKey, o.page])).toEqual(runs.filter((r) => r.settlement === 'kept').flatMap(() => [[KEYWORD, 1], [KEYWORD, 2]]));
    expect(stored[0]!.observedAt).toEqual(stored[1]!.observedAt);

    // The rule fired on runs 2 (left the pages) and 5 (left again after run 4 re-armed it).
    await waitFor(async () => receiver.at('/rank').length >= 2, 60_000, 100);
    const events = receiver.at('/rank').map((r) => {
      expect(r.method).toBe('POST');
      expect(signatureValid(r.headers['x-signature'], r.body, secret)).toBe(true);
      const body = JSON.parse(r.body);
      expect(r.headers['x-event-id']).toBe(body.event_id);
      return body;
    });
    expect(events).toHaveLength(2);
    for (const e of events) {
      expect(e).toMatchObject({
        kind: 'change', subscription_id: id, asin: tracked.asin, marketplace: 'com', keyword: KEYWORD,
        rule: { type: 'rank_below', value: THRESHOLD, asin: tracked.asin }, after: { organic_rank: null, sponsored: false },
      });
      expect(e.before.organic_rank).toBeLessThanOrEqual(THRESHOLD);
    }
    const [rule] = await prisma.alertRule.findMany({ where: { subscriptionId: id } });
    expect(rule).toBeUndefined(); // deleted with its subscription; the events outlive it
    const log = await api.get('/v1/appendix/webhook_deliveries?kind=change');
    const logged = log.body.tasks[0].result[0].deliveries as { event_id: string; outcome: string; http_status: number; subscription_id: number }[];
    expect(logged.filter((d) => d.subscription_id === id).map((d) => [d.event_id, d.outcome, d.http_status]).sort())
      .toEqual(events.map((e) => [e.event_id, 'delivered', 200]).sort());
    // The monitor started each delivery as a child workflow of its own.
    const history = await running.client.workflow.getHandle(monitorWorkflowId(id)).fetchHistory();
    const children = (history.events ?? []).flatMap((ev) => ev.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []);
    expect(children.sort()).toEqual(events.map((e) => webhookWorkflowId(e.event_id, 'change')).sort());
  }, 300_000);
});
