/**
 * Change alerts end to end over the whole stack (real Temporal dev server, real Chromium reading a
 * replay folder whose page this test rewrites between reads, PGlite) against a local receiver
 * exempted by WEBHOOK_ALLOWLIST:
 * - a monitor whose reads see the price and rank change fires its rules and starts the `change`
 *   deliveries itself; each rule fires once per entry into its condition and again after re-arming;
 * - every rule kind, driven by stored monitoring observations (availability, buy box and content
 *   are not read from pages yet), is delivered by the `webhookDelivery` workflow: trigger, no repeat
 *   for the same state, re-arm; signed like postbacks, `X-Event-Id` its event id.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { webhookWorkflowId, type WebhookDeliveryInput } from '../../core/domain/webhook-messages.js';
import { monitorWorkflowId } from '../../core/domain/subscription-messages.js';
import { observe, productWith, RULE_SCRIPTS } from '../support/alerts.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';
import { signatureValid, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const ASIN = 'B0000000K1';

/** A product page the parser reads a title, a price (USD) and a Best Sellers Rank from. */
function page(price: string, rank: string): string {
  return `<!DOCTYPE html><html lang="en-us"><head><meta charset="utf-8"><title>Amazon.com: Kettle</title></head><body>
<div id="dp"><div id="centerCol">
<div id="title_feature_div"><h1 id="title"><span id="productTitle">Steel Kettle</span></h1></div>
<div id="apex_desktop"><div id="corePriceDisplay_desktop_feature_div"><span class="a-price priceToPay"><span class="a-offscreen">$${price}</span></span></div></div>
</div>
<div id="detailBullets_feature_div"><ul class="a-unordered-list a-nostyle a-vertical zg_hrsr"><li><span class="a-list-item"><span class="a-text-bold">Best Sellers Rank:</span> #${rank} in Kitchen &amp; Dining (<a href="/gp/bestsellers/kitchen">See Top 100 in Kitchen &amp; Dining</a>)</span></li></ul></div>
</div></body></html>`;
}

let pages: string;
let running: TestStack;
let receiver: WebhookReceiver;
let api: ApiClient;
let secret: string;
let accountId: number;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  pages = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-alert-pages-'));
  fs.writeFileSync(path.join(pages, 'MANIFEST.tsv'), `file\tmarketplace\tasin\tkind\tapprox_year\ncom_${ASIN}.html\tcom\t${ASIN}\tproduct\t2026\n`);
  fs.writeFileSync(path.join(pages, `com_${ASIN}.html`), page('25.00', '1,000'));
  running = await startTestStack({
    pages,
    env: {
      WEBHOOK_ALLOWLIST: `127.0.0.1:${receiver.port}`, WEBHOOK_RETRY_DELAYS: '1s', WEBHOOK_TIMEOUT: '2s',
      MONITORING_INTERVALS: 'hourly=3s', SOURCE_READ_ATTEMPTS: '2',
    },
  });
  const account = await createAccount(running.stack.db, { login: 'alerted', email: 'alerted@example.com', balance: 5 });
  accountId = account.id;
  secret = (await running.stack.db.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).webhookSecret;
  api = apiClient(running.stack.api.url, { login: 'alerted', key: account.api_key });
}, 240_000);

afterAll(async () => {
  await running?.stop();
  await receiver?.close();
  if (pages) fs.rmSync(pages, { recursive: true, force: true });
});

/** The change events received at `prefix`, each checked: signed over its raw body, `X-Event-Id` its event_id. */
function changesAt(prefix: string) {
  return receiver.at(prefix).map((r) => {
    expect(r.method).toBe('POST');
    expect(r.headers['content-type']).toBe('application/json');
    expect(signatureValid(r.headers['x-signature'], r.body, secret)).toBe(true);
    const body = JSON.parse(r.body);
    expect(r.headers['x-event-id']).toBe(body.event_id);
    return body;
  });
}

describe('change alerts over the whole stack', () => {
  it('a monitor whose reads see the price and rank change delivers each rule\'s change once per entry into its condition', async () => {
    const db = running.stack.db;
    const prisma = db.prisma;
    const added = await api.post('/v1/retail/monitoring/add', [{
      asin: ASIN, marketplace: 'com', frequency: 'hourly', alert_url: `${receiver.url}/alerts/monitor`,
      alerts: [{ type: 'price_below', value: 20 }, { type: 'bsr_change_percent', value: 50 }],
    }]);
    expect(added.body.tasks[0].status_code).toBe(20000);
    const id: number = added.body.tasks[0].result[0].id;
    // Read n stores observation n; then the page changes for read n + 1 (reads are 3 s apart).
    const script: [string, string][] = [['19.00', '2,500'], ['18.00', '2,600'], ['22.00', '2,600'], ['19.50', '1,000']];
    const reads = () => prisma.observation.count({ where: { subscriptionId: id } });
    for (const [n, [price, rank]] of script.entries()) {
      await waitFor(async () => (await reads()) >= n + 1, 60_000, 100);
      fs.writeFileSync(path.join(pages, `com_${ASIN}.html`), page(price, rank));
    }
    await waitFor(async () => (await reads()) >= script.length + 1, 60_000, 100);
    await api.post('/v1/retail/monitoring/delete', [{ id }]);
    await waitFor(async () => receiver.at('/alerts/monitor').length >= 4, 60_000, 100);
    const events = changesAt('/alerts/monitor');
    const seen = events.map((e) => `${e.rule.type}: ${JSON.stringify(e.before.price?.amount ?? e.before.bsr_rank)} → ${JSON.stringify(e.after.price?.amount ?? e.after.bsr_rank)}`).sort();
    expect(seen).toEqual(['bsr_change_percent: 1000 → 2500', 'bsr_change_percent: 2600 → 1000', 'price_below: 22 → 19.5', 'price_below: 25 → 19']);
    for (const e of events) expect(e).toMatchObject({ kind: 'change', subscription_id: id, asin: ASIN, marketplace: 'com', observed_at: e.after.observed_at });
    // The monitor started each delivery as a child workflow of its own.
    const history = await running.client.workflow.getHandle(monitorWorkflowId(id)).fetchHistory();
    const children = (history.events ?? []).flatMap((ev) => ev.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []);
    expect(children.sort()).toEqual(events.map((e) => webhookWorkflowId(e.event_id, 'change')).sort());
  }, 180_000);

  it('every rule kind, from stored observations: delivered when it fires, never for the same state, again after re-arming', async () => {
    const db = running.stack.db;
    const started: Promise<unknown>[] = [];
    const types = Object.keys(RULE_SCRIPTS);
    for (const [i, type] of types.entries()) {
      const script = RULE_SCRIPTS[type]!;
      const asin = `B00000R${String(i).padStart(3, '0')}`;
      const added = await api.post('/v1/retail/monitoring/add', [{ asin, marketplace: 'com', frequency: 'daily', alert_url: `${receiver.url}/alerts/${type}`, alerts: [script.rule] }]);
      const id: number = added.body.tasks[0].result[0].id;
      for (const step of script.steps) {
        const { changes } = await observe(db, id, productWith(asin, step.over));
        expect(changes !== null, `${type} step ${JSON.stringify(step.over)}`).toBe(step.fires);
        // What the monitor does with a read's changes (workflows/webhook-delivery.ts startChangeDeliveries).
        for (const eventId of changes?.eventIds ?? []) {
          started.push(running.client.workflow.start('webhookDelivery', {
            taskQueue: running.stack.config.TEMPORAL_TASK_QUEUE, workflowId: webhookWorkflowId(eventId, 'change'),
            args: [{ eventId, kind: 'change', retryDelaysMs: [1_000], timeoutMs: 2_000, accountId } satisfies WebhookDeliveryInput],
          }).then((handle) => handle.result()));
        }
      }
    }
    await Promise.all(started);
    for (const type of types) {
      const events = changesAt(`/alerts/${type}`);
      const fired = RULE_SCRIPTS[type]!.steps.filter((s) => s.fires).length;
      expect(events.length, type).toBe(fired);
      for (const e of events) {
        expect(e.rule.type).toBe(type);
        expect(Object.keys(e.before).length, type).toBe(2); // observed_at and the rule's own field
        expect(Object.keys(e.after)).toEqual(Object.keys(e.before));
        expect(e.before).not.toEqual(e.after);
      }
    }
    expect(changesAt('/alerts/availability_change').map((e) => [e.before.availability, e.after.availability])).toEqual([['in_stock', 'out_of_stock'], ['out_of_stock', 'low_stock']]);
    expect(changesAt('/alerts/buy_box_change').map((e) => e.after.buy_box.seller_name)).toEqual(['Kettle Shop', 'Amazon.com']);
    expect(new Set(changesAt('/alerts/content_change').map((e) => e.after.content_hash)).size).toBe(2);
  }, 180_000);
});
