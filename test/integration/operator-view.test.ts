/**
 * The operators' view (docs/operations.md "Operators' view in the Temporal UI") over the whole
 * stack: the real Temporal dev server with the custom search attributes, the worker with Chromium on
 * the synthetic replay pages, PGlite, and a local webhook receiver exempted by WEBHOOK_ALLOWLIST.
 * Workflows are found by the runbook's visibility queries, their summaries read back with
 * `describe`, a subscription's state query answers before its first read, and a stuck task ended
 * by hand (cancel or terminate) answers 50301 with its charge refunded.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScheduleOverlapPolicy, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { SEARCH_ATTRIBUTES } from '../../core/domain/operator-view.js';
import { monitorWorkflowId, type MonitorStateView } from '../../core/domain/subscription-messages.js';
import type { Stack } from '../../scripts/stack.js';
import { accountMoney } from '../support/ledger.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

/** A page the replay server answers only after the test is over: its read hangs (a stuck task). */
const STUCK_PAGE = { asin: 'B0000000D1', marketplace: 'com', path: '/www.amazon.com/dp/B0000000D1' };

/** The receiver: `/fail/...` answers 500, every other path 200. */
async function startReceiver() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(req.url?.startsWith('/fail/') ? 500 : 200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { port, url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

interface Listed { workflowId: string; type: string; status: string }

describe("operators' view: search attributes, summaries, state query, ending a stuck task", () => {
  let running: TestStack;
  let stack: Stack;
  let temporal: Client;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** Every API key, webhook secret and e-mail address created: none may reach Temporal. */
  const secrets: string[] = [];

  const account = async (login: string, balance = 1): Promise<{ id: number; api: ApiClient; key: string }> => {
    const email = `${login}@example.com`;
    const created = await createAccount(stack.db, { login, email, balance });
    const { webhookSecret } = await stack.db.prisma.account.findUniqueOrThrow({ where: { id: created.id } });
    secrets.push(created.api_key, webhookSecret, email);
    return { id: created.id, api: apiClient(stack.api.url, { key: created.api_key }), key: created.api_key };
  };
  /** The runbook's query, as `temporal workflow list --query` runs it: ids, types and statuses, sorted by id. */
  const list = async (query: string): Promise<Listed[]> => {
    const found: Listed[] = [];
    for await (const w of temporal.workflow.list({ query })) found.push({ workflowId: w.workflowId, type: w.type, status: w.status.name });
    return found.sort((a, b) => a.workflowId.localeCompare(b.workflowId));
  };
  /** Waits until the query lists exactly `expected` (visibility follows the workflows by a moment). */
  const listsExactly = async (query: string, expected: Listed[]) => {
    const want = [...expected].sort((a, b) => a.workflowId.localeCompare(b.workflowId));
    let last: Listed[] = [];
    await waitFor(async () => JSON.stringify((last = await list(query))) === JSON.stringify(want), 30_000).catch(() => undefined);
    expect(last, query).toEqual(want);
  };
  const finished = (api: ApiClient, id: string) => waitFor(async () => {
    const code = (await api.get(`/v1/retail/product/task_get/${id}`)).body.tasks[0].status_code as number;
    return code !== 40401 && code;
  }, 90_000);
  const describeOf = (workflowId: string) => temporal.workflow.getHandle(workflowId).describe();
  /** The custom search attributes of a workflow (core/domain/operator-view.ts), without Temporal's own. */
  const attributes = (d: WorkflowExecutionDescription) =>
    Object.fromEntries(d.typedSearchAttributes.getAll().filter((p) => p.key.name in SEARCH_ATTRIBUTES).map((p) => [p.key.name, p.value]));
  const currentDetails = async (workflowId: string) =>
    ((await temporal.workflow.getHandle(workflowId).query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ?? '');

  beforeAll(async () => {
    receiver = await startReceiver();
    running = await startTestStack({
      delays: { [STUCK_PAGE.path]: 3_600_000 },
      env: {
        REUSE_WINDOW: '0s', SOURCE_READ_ATTEMPTS: '1', BROWSER_NAV_TIMEOUT: '10m', LIVE_BUDGET: '60s',
        WEBHOOK_ALLOWLIST: `127.0.0.1:${receiver.port}`, WEBHOOK_RETRY_DELAYS: '1h',
        MONITORING_INTERVALS: 'hourly=1h,every_6h=6h,daily=1d',
      },
    });
    ({ stack, client: temporal } = running);
  });

  afterAll(async () => {
    await running?.stop();
    await receiver?.close();
  });

  let alice: Awaited<ReturnType<typeof account>>;
  const ids: Record<string, string> = {};

  it('one account\'s failed tasks: AccountId = N AND ResultCode >= 40000 lists exactly the task whose product does not exist', async () => {
    alice = await account('opview-alice');
    const res = await alice.api.post('/v1/retail/product/task_post', [
      { asin: 'B0000000P1', marketplace: 'de', tag: 'op-a' },
      { asin: 'B0000000F1', marketplace: 'com', tag: 'ask ops@example.com' },
    ]);
    [ids.found, ids.missing] = res.body.tasks.map((t: { id: string }) => t.id);
    expect(await finished(alice.api, ids.found!)).toBe(20000);
    expect(await finished(alice.api, ids.missing!)).toBe(40402);

    await listsExactly(`AccountId = ${alice.id} AND ResultCode >= 40000`, [{ workflowId: ids.missing!, type: 'productTask', status: 'COMPLETED' }]);
    await listsExactly(`AccountId = ${alice.id} AND ResultCode = 20000`, [{ workflowId: ids.found!, type: 'productTask', status: 'COMPLETED' }]);
    await listsExactly(`AccountId = ${alice.id} AND Tag = 'op-a'`, [{ workflowId: ids.found!, type: 'productTask', status: 'COMPLETED' }]);
  });

  it('every start carries a one-line summary read back with describe; no e-mail address in summaries or attributes', async () => {
    const found = await describeOf(ids.found!);
    expect(await found.staticSummary()).toBe(`task B0000000P1 on de · account ${alice.id} opview-alice · tag op-a`);
    expect(await found.staticDetails()).toContain(`task_post task ${ids.found}`);
    expect(attributes(found)).toEqual({ AccountId: alice.id, Asin: 'B0000000P1', Marketplace: 'de', Tag: 'op-a', ResultCode: 20000, Summary: await found.staticSummary() });
    const missing = await describeOf(ids.missing!);
    expect(await missing.staticSummary()).toBe(`task B0000000F1 on com · account ${alice.id} opview-alice · tag ask <e-mail>`);
    expect(attributes(missing)).toMatchObject({ Tag: 'ask <e-mail>', ResultCode: 40402 });
    expect(await currentDetails(ids.missing!)).toBe('finished: 40402 (product not found; not charged)');
  });

  it('a subscription answers its state query and shows its details before its first read; SubscriptionId = N lists it running', async () => {
    const res = await alice.api.post('/v1/retail/monitoring/add', [{ asin: 'B0000000P1', marketplace: 'de', frequency: 'hourly', tag: 'watch' }]);
    const subscriptionId = res.body.tasks[0].result[0].id as number;
    ids.monitor = monitorWorkflowId(subscriptionId);
    // Straight after the add: the first read is up to an hour away.
    const state = await temporal.workflow.getHandle(ids.monitor).query<MonitorStateView>('monitorState');
    expect(state).toMatchObject({ frequency: 'hourly', intervalMs: 3_600_000, paused: false, deliveries: 0, run: 1 });
    expect(state.lastResultCode).toBeUndefined();
    expect(Date.parse(state.nextReadAt)).toBe(state.nextDueAt);
    expect(state.nextDueAt).toBeGreaterThan(Date.now());
    expect(await currentDetails(ids.monitor)).toContain('hourly: next read at ');
    const described = await describeOf(ids.monitor);
    expect(await described.staticSummary()).toBe(`hourly subscription ${subscriptionId}: B0000000P1 on de · account ${alice.id} · tag watch`);
    expect(attributes(described)).toEqual({
      SubscriptionId: subscriptionId, AccountId: alice.id, Asin: 'B0000000P1', Marketplace: 'de', Tag: 'watch', Summary: await described.staticSummary(),
    });
    await listsExactly(`SubscriptionId = ${subscriptionId}`, [{ workflowId: ids.monitor, type: 'monitorSubscription', status: 'RUNNING' }]);

    // A new frequency and tag of the same subscription follow into its Tag attribute ...
    await alice.api.post('/v1/retail/monitoring/add', [{ asin: 'B0000000P1', marketplace: 'de', frequency: 'daily', tag: 'watch-2' }]);
    await listsExactly(`SubscriptionId = ${subscriptionId} AND Tag = 'watch-2'`, [{ workflowId: ids.monitor, type: 'monitorSubscription', status: 'RUNNING' }]);
    // ... and so does the Summary column the UI's list shows (the static summary stays as it started).
    await listsExactly(`Summary = 'daily subscription ${subscriptionId}: B0000000P1 on de · account ${alice.id} · tag watch-2'`, [
      { workflowId: ids.monitor, type: 'monitorSubscription', status: 'RUNNING' },
    ]);
  });

  it('subscriptions paused for balance: ResultCode = 40200, and the state query says why', async () => {
    const broke = await account('opview-broke', 0);
    const res = await broke.api.post('/v1/retail/monitoring/add', [{ asin: 'B0000000N1', marketplace: 'com', frequency: 'daily' }]);
    const subscriptionId = res.body.tasks[0].result[0].id as number;
    expect(res.body.tasks[0].result[0].status).toBe('paused_balance');
    const workflowId = monitorWorkflowId(subscriptionId);
    expect(await temporal.workflow.getHandle(workflowId).query<MonitorStateView>('monitorState')).toMatchObject({ paused: true, pausedReason: 'balance' });
    await listsExactly(`WorkflowType = 'monitorSubscription' AND ExecutionStatus = 'Running' AND ResultCode = 40200 AND AccountId = ${broke.id}`, [
      { workflowId, type: 'monitorSubscription', status: 'RUNNING' },
    ]);
    expect(await currentDetails(workflowId)).toMatch(/^paused: balance \(40200\); status re-checked at /);
  });

  it('everything about one ASIN on one marketplace: Asin = "…" AND Marketplace = "de" lists its tasks, subscription and deliveries', async () => {
    const bob = await account('opview-bob');
    const res = await bob.api.post('/v1/retail/product/task_post', [
      { asin: 'B0000000P1', marketplace: 'de', postback_url: `${receiver.url}/ok/hook?token=s3cr3t-query`, pingback_url: `${receiver.url}/fail/ping?id=$id` },
    ]);
    ids.bob = res.body.tasks[0].id as string;
    expect(await finished(bob.api, ids.bob)).toBe(20000);
    const postback = `webhook:${ids.bob}:postback`;
    const pingback = `webhook:${ids.bob}:pingback`;
    await listsExactly(`Asin = "B0000000P1" AND Marketplace = "de"`, [
      { workflowId: ids.found!, type: 'productTask', status: 'COMPLETED' },
      { workflowId: ids.monitor!, type: 'monitorSubscription', status: 'RUNNING' },
      { workflowId: ids.bob, type: 'productTask', status: 'COMPLETED' },
      { workflowId: postback, type: 'webhookDelivery', status: 'COMPLETED' },
      { workflowId: pingback, type: 'webhookDelivery', status: 'RUNNING' },
    ]);
    await listsExactly(`Asin = "B0000000P1" AND Marketplace = "com"`, []);

    // Deliveries still retrying (the pingback's receiver answered 500; the next try is an hour away).
    await listsExactly(`WorkflowType = 'webhookDelivery' AND ExecutionStatus = 'Running' AND AccountId = ${bob.id}`, [
      { workflowId: pingback, type: 'webhookDelivery', status: 'RUNNING' },
    ]);
    await listsExactly(`WebhookKind = 'postback' AND AccountId = ${bob.id} AND ResultCode = 200`, [{ workflowId: postback, type: 'webhookDelivery', status: 'COMPLETED' }]);
    // The pingback's ResultCode is upserted once its first attempt has failed: wait for it to show.
    await listsExactly(`WebhookKind = 'pingback' AND AccountId = ${bob.id} AND ResultCode = 500`, [{ workflowId: pingback, type: 'webhookDelivery', status: 'RUNNING' }]);
    const ping = await describeOf(pingback);
    expect(await ping.staticSummary()).toBe(`pingback of task ${ids.bob} to ${receiver.url}/fail/ping · account ${bob.id}`);
    expect(attributes(ping)).toEqual({ WebhookKind: 'pingback', AccountId: bob.id, Asin: 'B0000000P1', Marketplace: 'de', ResultCode: 500, Summary: await ping.staticSummary() });
    expect(await currentDetails(pingback)).toMatch(/^attempt 1 of 2 failed \(HTTP 500\)\nnext attempt at /);
    expect(await (await describeOf(postback)).staticSummary()).toBe(`postback of task ${ids.bob} to ${receiver.url}/ok/hook · account ${bob.id}`);
    const task = await describeOf(ids.bob);
    expect(await task.staticDetails()).toContain(`webhooks: postback to ${receiver.url}/ok/hook, pingback to ${receiver.url}/fail/ping`);
  });

  it('a stuck task cancelled by hand answers 50301 at once and its charge is refunded', async () => {
    const carol = await account('opview-carol');
    const res = await carol.api.post('/v1/retail/product/task_post', [{ asin: STUCK_PAGE.asin, marketplace: STUCK_PAGE.marketplace }]);
    const id = res.body.tasks[0].id as string;
    await waitFor(async () => (await stack.db.prisma.task.findUniqueOrThrow({ where: { id } })).state === 'running', 60_000);
    expect((await accountMoney(stack.db.prisma, { id: carol.id })).balance).toBeLessThan(1);
    await listsExactly(`WorkflowType = 'productTask' AND ExecutionStatus = 'Running' AND AccountId = ${carol.id}`, [{ workflowId: id, type: 'productTask', status: 'RUNNING' }]);

    await temporal.workflow.getHandle(id).cancel();
    expect(await finished(carol.api, id)).toBe(50301);
    const money = await accountMoney(stack.db.prisma, { id: carol.id });
    expect(money.balance).toBeCloseTo(1, 9);
    expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
    await listsExactly(`AccountId = ${carol.id} AND ResultCode = 50301`, [{ workflowId: id, type: 'productTask', status: 'CANCELLED' }]);
    expect(await currentDetails(id)).toBe('finished: 50301 (source not read; refunded, cancelled)');
  });

  it('a stuck task terminated by hand is refunded by the next reconciler run (50301), however recently it was looked at', async () => {
    const dave = await account('opview-dave');
    const res = await dave.api.post('/v1/retail/product/task_post', [{ asin: STUCK_PAGE.asin, marketplace: STUCK_PAGE.marketplace }]);
    const id = res.body.tasks[0].id as string;
    await waitFor(async () => (await stack.db.prisma.task.findUniqueOrThrow({ where: { id } })).state === 'running', 60_000);
    // The reconciler looked at it a moment ago and found it running: the usual recheck is 10 minutes away.
    await stack.db.prisma.$executeRawUnsafe(`UPDATE tasks SET reconciled_at = now() WHERE id = $1::uuid`, id);

    await temporal.workflow.getHandle(id).terminate('stuck: ended by an operator');
    await temporal.schedule.getHandle('task-reconciler').trigger(ScheduleOverlapPolicy.ALLOW_ALL);
    expect(await finished(dave.api, id)).toBe(50301);
    const money = await accountMoney(stack.db.prisma, { id: dave.id });
    expect(money.balance).toBeCloseTo(1, 9);
    expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
    await listsExactly(`AccountId = ${dave.id} AND ExecutionStatus = 'Terminated'`, [{ workflowId: id, type: 'productTask', status: 'TERMINATED' }]);
  });

  it('a live read whose workflow is terminated while the caller waits answers 50301 at once, refunded', async () => {
    const erin = await account('opview-erin');
    const answer = erin.api.post('/v1/retail/product/live', [{ asin: STUCK_PAGE.asin, marketplace: STUCK_PAGE.marketplace }]);
    const task = await waitFor(async () => stack.db.prisma.task.findFirst({ where: { accountId: erin.id, state: 'running' } }), 60_000);
    expect((await describeOf(task.id)).typedSearchAttributes.get(SEARCH_ATTRIBUTES.Summary)).toBe(`live read ${STUCK_PAGE.asin} on com · account ${erin.id} opview-erin`);
    const before = Date.now();
    await temporal.workflow.getHandle(task.id).terminate('stuck live read: ended by an operator');
    const res = await answer;
    expect(Date.now() - before).toBeLessThan(20_000); // not the 60 s budget
    expect(res.body.tasks[0]).toMatchObject({ id: task.id, status_code: 50301, cost: 0 });
    expect((await accountMoney(stack.db.prisma, { id: erin.id })).balance).toBeCloseTo(1, 9);
  });

  it('a hostile tag (255 four-byte characters, control characters) labels the task without breaking its start; the summary stays within 200 bytes', async () => {
    const frank = await account('opview-frank');
    const tags = ['😀'.repeat(255), 'a\u0001b\tc\u007f', `${'x'.repeat(200)} mail a.b+c@sub.example.org now`];
    const res = await frank.api.post('/v1/retail/product/task_post', tags.map((tag) => ({ asin: 'B0000000N1', marketplace: 'com', tag })));
    const taskIds = res.body.tasks.map((t: { id: string; status_code: number }) => { expect(t.status_code).toBe(20100); return t.id; });
    for (const id of taskIds) expect(await finished(frank.api, id)).toBe(20000);
    for (const [i, id] of taskIds.entries()) {
      const d = await describeOf(id);
      const summary = (await d.staticSummary())!;
      expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(200);
      expect(d.typedSearchAttributes.get(SEARCH_ATTRIBUTES.Summary)).toBe(summary);
      expect(d.typedSearchAttributes.get(SEARCH_ATTRIBUTES.Tag)).toBe(i === 2 ? `${'x'.repeat(200)} mail <e-mail> now` : tags[i]);
    }
    await listsExactly(`AccountId = ${frank.id} AND Tag = '${'😀'.repeat(255)}'`, [{ workflowId: taskIds[0], type: 'productTask', status: 'COMPLETED' }]);
  });

  it('no API key, webhook secret or e-mail address in any summary, details or search attribute', async () => {
    const texts: string[] = [];
    for await (const w of temporal.workflow.list({ query: `WorkflowType IN ('productTask', 'monitorSubscription', 'webhookDelivery')` })) {
      const d = await describeOf(w.workflowId);
      texts.push(`${await d.staticSummary()}`, `${await d.staticDetails()}`, JSON.stringify(attributes(d)), JSON.stringify(d.memo ?? {}));
      texts.push(await currentDetails(w.workflowId));
    }
    expect(texts.length).toBeGreaterThan(30);
    const all = texts.join('\n');
    for (const secret of [...secrets, 'ops@example.com', 's3cr3t-query']) expect(all).not.toContain(secret);
    expect(all).not.toMatch(/[\w.+-]+@[\w-]+\.[\w.]+/);
  });
});
