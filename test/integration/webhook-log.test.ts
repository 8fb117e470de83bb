/**
 * The webhook delivery log and redeliveries over the whole stack (real Temporal dev server,
 * Chromium reading the synthetic replay pages, PGlite) against a local receiver exempted by
 * WEBHOOK_ALLOWLIST, with retries scaled to seconds: every attempt of postbacks, pingbacks and
 * change events is listed per account with its event id, URL, attempt, status or error, latency
 * and next retry, paged by cursor and filtered by kind (REST and GraphQL); a redelivery sends the
 * stored event again under the same `X-Event-Id`, signed with the account's current secret; it is
 * refused for another account's event and rate limited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { webhookWorkflowId, type WebhookDeliveryInput } from '../../core/domain/webhook-messages.js';
import { REDELIVERIES_PER_MINUTE } from '../../core/webhooks/redelivery-limits.js';
import { observe, productWith } from '../support/alerts.js';
import { gqlClient, type GqlClient } from '../support/graphql.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';
import { signatureValid, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

let running: TestStack;
let receiver: WebhookReceiver;
let api: ApiClient;
let gql: GqlClient;
let stranger: ApiClient;
let accountId: number;
let taskId: string;
const secretOf = async () => (await running.stack.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).webhookSecret;
const log = async (query = '') => {
  const res = await api.get(`/v1/appendix/webhook_deliveries${query}`);
  expect(res.status).toBe(200);
  return res.body.tasks[0].result[0];
};

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  running = await startTestStack({ env: { WEBHOOK_ALLOWLIST: `127.0.0.1:${receiver.port}`, WEBHOOK_RETRY_DELAYS: '1s', WEBHOOK_TIMEOUT: '2s', SOURCE_READ_ATTEMPTS: '2' } });
  const account = await createAccount(running.stack.db, { login: 'logged', email: 'logged@example.com', balance: 5 });
  accountId = account.id;
  api = apiClient(running.stack.api.url, { login: 'logged', key: account.api_key });
  gql = gqlClient(running.stack.api.url, { login: 'logged', key: account.api_key });
  stranger = apiClient(running.stack.api.url, { key: (await createAccount(running.stack.db, { login: 'other', email: 'other@example.com', balance: 1 })).api_key });
  // A postback that fails once, then is delivered on its retry; a pingback delivered at once.
  const posted = await api.post('/v1/retail/product/task_post', [{ asin: 'B0000000P1', marketplace: 'de', postback_url: `${receiver.url}/flaky/post`, pingback_url: `${receiver.url}/ok/ping?id=$id` }]);
  taskId = posted.body.tasks[0].id;
  // A change event whose receiver always fails: both attempts are logged.
  const sub = (await api.post('/v1/retail/monitoring/add', [{ asin: 'B0000000L1', marketplace: 'com', frequency: 'daily', alert_url: `${receiver.url}/fail/alerts`, alerts: [{ type: 'price_below', value: 10 }] }])).body.tasks[0].result[0];
  await observe(running.stack.db, sub.id, productWith('B0000000L1', { price: { amount: 12, currency: 'USD' } }));
  const { changes } = await observe(running.stack.db, sub.id, productWith('B0000000L1', { price: { amount: 9, currency: 'USD' } }));
  const eventId = changes!.eventIds[0]!;
  const change = await running.client.workflow.start('webhookDelivery', {
    taskQueue: running.stack.config.TEMPORAL_TASK_QUEUE, workflowId: webhookWorkflowId(eventId, 'change'),
    args: [{ eventId, kind: 'change', retryDelaysMs: [1_000], timeoutMs: 2_000, accountId } satisfies WebhookDeliveryInput],
  });
  await change.result();
  await waitFor(async () => (await running.stack.db.prisma.webhookDelivery.count({ where: { accountId } })) >= 5, 90_000, 100);
}, 240_000);

afterAll(async () => {
  await running?.stop();
  await receiver?.close();
});

describe('the delivery log', () => {
  it('lists every attempt newest first with event id, URL, attempt, status or error, latency and next retry', async () => {
    const { deliveries, next_cursor } = await log();
    expect(next_cursor).toBeNull();
    const byKind = (kind: string) => deliveries.filter((d: any) => d.kind === kind).reverse();
    const [post1, post2] = byKind('postback');
    expect(post1).toMatchObject({ attempt: 1, outcome: 'failed', http_status: 500, redelivery: false, task_id: taskId, url: `${receiver.url}/flaky/post`, subscription_id: null });
    expect(post2).toMatchObject({ attempt: 2, outcome: 'delivered', http_status: 200, next_retry_at: null, event_id: post1.event_id });
    // The first attempt says when the retry was due (1 s after it).
    const due = Date.parse(post1.next_retry_at) - Date.parse(post1.created_at);
    expect(due).toBeGreaterThanOrEqual(900);
    expect(due).toBeLessThan(3_000);
    expect(Date.parse(post2.created_at)).toBeGreaterThanOrEqual(Date.parse(post1.next_retry_at) - 50);
    const [ping] = byKind('pingback');
    expect(ping).toMatchObject({ attempt: 1, outcome: 'delivered', url: `${receiver.url}/ok/ping?id=${taskId}`, next_retry_at: null });
    expect(ping.event_id).not.toBe(post1.event_id);
    const [change1, change2] = byKind('change');
    expect(change1).toMatchObject({ attempt: 1, outcome: 'failed', http_status: 500, task_id: null, subscription_id: expect.any(Number), next_retry_at: expect.any(String) });
    expect(change2).toMatchObject({ attempt: 2, outcome: 'failed', next_retry_at: null, event_id: change1.event_id });
    for (const d of deliveries) expect(d.latency_ms).toBeGreaterThanOrEqual(0);
    // The receiver saw each event's id on every attempt: it can deduplicate by it.
    expect(receiver.at('/flaky/post').map((r) => r.headers['x-event-id'])).toEqual([post1.event_id, post1.event_id]);
    expect(receiver.at('/ok/ping').map((r) => r.headers['x-event-id'])).toEqual([ping.event_id]);
    expect(receiver.at('/fail/alerts').map((r) => r.headers['x-event-id'])).toEqual([change1.event_id, change1.event_id]);
  });

  it('pages by cursor and filters by kind; another account sees none of it; a bad cursor or kind is 40501', async () => {
    const all = (await log()).deliveries.map((d: any) => d.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await log(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.deliveries.length).toBeLessThanOrEqual(2);
      seen.push(...page.deliveries.map((d: any) => d.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all);
    expect((await log('?kind=change')).deliveries.map((d: any) => d.kind)).toEqual(['change', 'change']);
    expect((await stranger.get('/v1/appendix/webhook_deliveries')).body.tasks[0].result[0]).toEqual({ deliveries: [], next_cursor: null });
    expect((await api.get('/v1/appendix/webhook_deliveries?cursor=bm9wZQ')).body).toMatchObject({ status_code: 40501, status_message: 'Invalid field: `cursor`.' });
    expect((await api.get('/v1/appendix/webhook_deliveries?kind=email')).body).toMatchObject({ status_code: 40501, status_message: 'Invalid field: `kind`.' });
    expect((await api.get('/v1/appendix/webhook_deliveries?limit=0')).body).toMatchObject({ status_code: 40501, status_message: 'Invalid field: `limit`.' });
  });

  it('GraphQL webhookDeliveries lists the same attempts', async () => {
    const res = await gql('{ webhookDeliveries(first: 10, kind: postback) { edges { cursor node { id eventId kind attempt outcome httpStatus latencyMs nextRetryAt taskId redelivery } } pageInfo { hasNextPage } } }');
    expect(res.body.errors).toBeUndefined();
    const rest = (await log('?kind=postback')).deliveries;
    expect(res.body.data.webhookDeliveries.edges.map((e: any) => e.node)).toEqual(rest.map((d: any) => ({
      id: d.id, eventId: d.event_id, kind: d.kind, attempt: d.attempt, outcome: d.outcome, httpStatus: d.http_status, latencyMs: d.latency_ms,
      nextRetryAt: d.next_retry_at, taskId: d.task_id, redelivery: false,
    })));
  });
});

describe('redeliver', () => {
  it('sends the stored event again under the same event id, signed with the current secret, and logs it as a redelivery', async () => {
    const post = (await log('?kind=postback')).deliveries[0];
    await running.stack.db.prisma.account.update({ where: { id: accountId }, data: { webhookSecret: 'rotated-secret-for-the-test' } });
    const res = await api.post(`/v1/appendix/webhook_deliveries/${post.event_id}/redeliver`, undefined);
    expect(res.status).toBe(200);
    expect(res.body.tasks[0]).toMatchObject({ status_code: 20000, result: [{ event_id: post.event_id, kind: 'postback', url: `${receiver.url}/flaky/post` }] });
    await waitFor(async () => receiver.at('/flaky/post').length >= 3, 60_000, 100);
    const again = receiver.at('/flaky/post')[2]!;
    expect(again.headers['x-event-id']).toBe(post.event_id);
    expect(signatureValid(again.headers['x-signature'], again.body, await secretOf())).toBe(true);
    expect(JSON.parse(again.body).tasks[0].id).toBe(taskId);
    await waitFor(async () => (await log('?kind=postback')).deliveries.some((d: any) => d.redelivery), 30_000, 100);
    expect((await log('?kind=postback')).deliveries[0]).toMatchObject({ event_id: post.event_id, attempt: 1, redelivery: true, outcome: 'delivered' });
  });

  it('GraphQL redeliverWebhook starts the same redelivery', async () => {
    const ping = (await log('?kind=pingback')).deliveries.at(-1);
    const res = await gql('mutation($id: ID!) { redeliverWebhook(eventId: $id) { eventId kind url } }', { id: ping.event_id });
    expect(res.body).toEqual({ data: { redeliverWebhook: { eventId: ping.event_id, kind: 'pingback', url: `${receiver.url}/ok/ping?id=$id` } } });
    await waitFor(async () => receiver.at('/ok/ping').length >= 2, 60_000, 100);
    expect(receiver.at('/ok/ping')[1]!.headers['x-event-id']).toBe(ping.event_id);
  });

  it('answers 404 for another account\'s event, an unknown id or a non-UUID; 429 beyond the per-minute limit', async () => {
    const post = (await log('?kind=postback')).deliveries[0];
    expect((await stranger.post(`/v1/appendix/webhook_deliveries/${post.event_id}/redeliver`, undefined))).toMatchObject({ status: 404, body: { status_code: 40400 } });
    expect((await api.post('/v1/appendix/webhook_deliveries/00000000-0000-4000-8000-000000000000/redeliver', undefined))).toMatchObject({ status: 404, body: { status_code: 40400 } });
    expect((await api.post('/v1/appendix/webhook_deliveries/nope/redeliver', undefined))).toMatchObject({ status: 404, body: { status_code: 40400 } });
    // Two redeliveries so far this minute (REST and GraphQL).
    for (let i = 2; i < REDELIVERIES_PER_MINUTE; i++) expect((await api.post(`/v1/appendix/webhook_deliveries/${post.event_id}/redeliver`, undefined)).status).toBe(200);
    const refused = await api.post(`/v1/appendix/webhook_deliveries/${post.event_id}/redeliver`, undefined);
    expect(refused).toMatchObject({ status: 429, body: { status_code: 40202 } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
