/**
 * Monitoring's money through the whole stack (real Temporal dev server, real Chromium, PGlite, the
 * replay server over test/fixtures/replay; MONITORING_INTERVALS shortened to seconds): the price of
 * an observation is reserved before its page is read, so an observation that was not paid for is
 * never read, delivered or shown; a failed read gives its reservation back; a disabled account's
 * monitors charge, read and deliver nothing until it is enabled. Then the run steps themselves
 * (core/monitoring-runs.ts) repeated as Temporal activity retries repeat them.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, setDisabled } from '../../api/admin/accounts.js';
import { MonitoringRunError, monitoringRunRead, refundMonitoringRun, startMonitoringRun, storeMonitoringObservation } from '../../core/monitoring-runs.js';
import { PLANS } from '../../core/pricing.js';
import { version1Fields, type Product } from '../../core/product.js';
import { addSubscriptions } from '../../core/subscriptions.js';
import type { Stack } from '../../scripts/stack.js';
import { monitorWorkflowId } from '../../core/domain/subscription-messages.js';
import { monitorStateQuery } from '../../workflows/definitions.js';
import type { DelayedReplay } from '../support/delayed-replay.js';
import { repoRoot } from '../support/env.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { monitoringHelpers, pagePath } from '../support/monitoring.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

const PRICE = PLANS.standard!.rates.monitoring;
const INTERVAL_MS = 2_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let running: TestStack;
let stack: Stack;
let replay: DelayedReplay;
let dataDir: string;
let client: Client;
/** An account with money for history reads (history shows every account's observations). */
let reader: ApiClient;
let readerAuth: string;

const { db, prisma, deliveries, account, add } = monitoringHelpers(() => stack);

/** Waits until `hits()` stops changing for two intervals (a run under way may finish). */
async function settled(hits: () => number): Promise<number> {
  let last = hits();
  await waitFor(async () => {
    await sleep(INTERVAL_MS);
    const same = hits() === last;
    last = hits();
    return same;
  }, 40_000, 0);
  await sleep(500);
  return hits();
}

/** History of a product as the REST endpoint and GraphQL `productHistory` show it. */
async function historyOf(asin: string, marketplace: string): Promise<{ rest: any[]; graphql: any[] }> {
  const rest = await reader.post('/v1/retail/product/history', [{ asin, marketplace }]);
  expect(rest.body.tasks[0].status_code).toBe(20000);
  const gql = await fetch(`${stack.api.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: readerAuth },
    body: JSON.stringify({ query: 'query($a: String!, $m: String!) { productHistory(asin: $a, marketplace: $m) { products { asin observedAt } } }', variables: { a: asin, m: marketplace } }),
  });
  const body = (await gql.json()) as any;
  expect(body.errors).toBeUndefined();
  return { rest: rest.body.tasks[0].result, graphql: body.data.productHistory.products };
}

beforeAll(async () => {
  running = await startTestStack({ env: { MONITORING_INTERVALS: `hourly=${INTERVAL_MS}ms,every_6h=1h,daily=1h`, SOURCE_READ_ATTEMPTS: '2' } });
  ({ stack, replay, dataDir, client } = running);
  const created = await createAccount(db(), { login: 'reader', email: 'reader@example.com', balance: 1 });
  reader = apiClient(stack.api.url, { key: created.api_key });
  readerAuth = `Bearer ${created.api_key}`;
});

afterAll(async () => {
  await running?.stop();
});

describe('monitoring money through the whole stack', () => {
  it('a balance for 2.5 observations: exactly 2 are read, charged, delivered and shown; the third run pauses before reading', async () => {
    const thrifty = await account('thrifty', PRICE * 2.5);
    const [t1, j1] = await add(thrifty.api, [
      { asin: 'B0000000T1', marketplace: 'com', frequency: 'hourly' },
      { asin: 'B0000000J1', marketplace: 'jp', frequency: 'hourly' },
    ]);
    await waitFor(async () => (await prisma().account.findUniqueOrThrow({ where: { id: thrifty.id } })).subscriptionsPaused, 40_000, 100);
    const hits = () => replay.hits(pagePath('com', 'B0000000T1')) + replay.hits(pagePath('co.jp', 'B0000000J1'));
    expect(await settled(hits)).toBe(2); // the unpaid third observation was never read

    const money = await accountMoney(prisma(), { id: thrifty.id });
    expect(money.entries.filter((e) => e.kind === 'monitoring')).toHaveLength(2);
    expect(money.entries.filter((e) => e.kind === 'refund')).toHaveLength(0);
    expect(money.balance).toBeCloseTo(PRICE * 0.5, 9);
    expect(money.ledgerSum).toBeCloseTo(money.balance, 9);

    // Delivered: two observations attached, each subscription's latest; the monitors counted two.
    expect((await deliveries(t1.id)) + (await deliveries(j1.id))).toBe(2);
    const listed = (await thrifty.api.get('/v1/retail/monitoring/list')).body.tasks[0].result as any[];
    expect(listed.map((s) => s.status)).toEqual(['paused_balance', 'paused_balance']);
    expect(listed.every((s) => s.latest_observation !== null)).toBe(true);
    const states = await Promise.all([t1.id, j1.id].map((id) => client.workflow.getHandle(monitorWorkflowId(id)).query(monitorStateQuery)));
    expect(states.reduce((n, s) => n + s.deliveries, 0)).toBe(2);
    expect(states.every((s) => s.paused && s.pausedReason === 'balance')).toBe(true);

    // Shown: history (REST and GraphQL) holds exactly the two paid observations.
    const [t1History, j1History] = [await historyOf('B0000000T1', 'com'), await historyOf('B0000000J1', 'jp')];
    expect(t1History.rest.length + j1History.rest.length).toBe(2);
    expect(t1History.graphql.length + j1History.graphql.length).toBe(2);
    expect(await prisma().observation.count({ where: { asin: { in: ['B0000000T1', 'B0000000J1'] } } })).toBe(2);
    await thrifty.api.post('/v1/retail/monitoring/delete', [{ id: t1.id }, { id: j1.id }]);
  }, 120_000);

  it('a read that fails every attempt gives its reservation back: the balance is whole, nothing is shown, nothing pauses', async () => {
    const exact = await account('exact', PRICE); // one observation's worth: a lost reservation would pause it
    const [c1] = await add(exact.api, [{ asin: 'B0000000C1', marketplace: 'br', frequency: 'hourly' }]);
    try {
      const entriesOf = () => prisma().ledgerEntry.findMany({ where: { subscriptionId: c1.id }, orderBy: { id: 'asc' } });
      // Two runs, each reserved before its (two) reads and refunded after them.
      await waitFor(async () => {
        const entries = await entriesOf();
        return entries.filter((e) => e.kind === 'refund').length >= 2 && entries.length % 2 === 0;
      }, 60_000, 50);
      expect(replay.hits(pagePath('com.br', 'B0000000C1'))).toBeGreaterThanOrEqual(4);
      const entries = await entriesOf();
      for (let i = 0; i < entries.length; i += 2) {
        expect([entries[i]!.kind, Number(entries[i]!.amount)]).toEqual(['monitoring', -PRICE]);
        expect([entries[i + 1]!.kind, Number(entries[i + 1]!.amount)]).toEqual(['refund', PRICE]);
        expect(entries[i + 1]!.runKey).toBe(`${entries[i]!.runKey}:refund`);
      }
      const money = await accountMoney(prisma(), { id: exact.id });
      expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
      expect(await deliveries(c1.id)).toBe(0);
      expect((await historyOf('B0000000C1', 'br')).rest).toEqual([]);
      expect((await prisma().subscription.findUniqueOrThrow({ where: { id: c1.id } })).status).toBe('active');
      expect((await prisma().account.findUniqueOrThrow({ where: { id: exact.id } })).subscriptionsPaused).toBe(false);
    } finally {
      await exact.api.post('/v1/retail/monitoring/delete', [{ id: c1.id }]);
    }
    await waitFor(async () => (await client.workflow.getHandle(monitorWorkflowId(c1.id)).describe()).status.name === 'COMPLETED', 30_000, 200);
    const money = await accountMoney(prisma(), { id: exact.id });
    expect(money.balance).toBeCloseTo(PRICE, 9);
  }, 120_000);

  it('a disabled account\'s monitors charge, read and deliver nothing; enabling resumes them at once', async () => {
    const dormant = await account('dormant', 1);
    const [d1] = await add(dormant.api, [{ asin: 'B0000000D1', marketplace: 'com', frequency: 'hourly' }]);
    await waitFor(async () => (await deliveries(d1.id)) >= 1, 30_000, 100);
    await setDisabled(db(), { login: 'dormant', disabled: true });
    const hits = () => replay.hits(pagePath('com', 'B0000000D1'));
    const before = { hits: await settled(hits), delivered: await deliveries(d1.id), money: await accountMoney(prisma(), { id: dormant.id }) };
    await sleep(3 * INTERVAL_MS);
    expect(hits()).toBe(before.hits);
    expect(await deliveries(d1.id)).toBe(before.delivered);
    const money = await accountMoney(prisma(), { id: dormant.id });
    expect(money.entries).toHaveLength(before.money.entries.length);
    expect(money.balance).toBe(before.money.balance);
    const handle = client.workflow.getHandle(monitorWorkflowId(d1.id));
    expect(await handle.query(monitorStateQuery)).toMatchObject({ paused: true, pausedReason: 'account_disabled' });
    // Not a balance matter: the subscription keeps its status.
    expect((await prisma().subscription.findUniqueOrThrow({ where: { id: d1.id } })).status).toBe('active');

    // The operator's `account enable` (its own process) signals the monitors: reads resume at once.
    const enabledAt = Date.now();
    const { stdout } = await promisify(execFile)(path.join(repoRoot, 'node_modules/.bin/tsx'), ['api/admin/cli.ts', 'account', 'enable', '--login', 'dormant'], {
      cwd: repoRoot, encoding: 'utf8', env: { PATH: process.env.PATH, DATA_DIR: dataDir },
    });
    expect(JSON.parse(stdout)).toEqual({ login: 'dormant', disabled: false });
    await waitFor(async () => (await deliveries(d1.id)) > before.delivered, 30_000, 100);
    expect(Date.now() - enabledAt).toBeLessThan(30_000);
    expect(hits()).toBeGreaterThan(before.hits);
    expect((await handle.query(monitorStateQuery)).paused).toBe(false);
    const { events } = await handle.fetchHistory();
    expect(events!.some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'monitorResume')).toBe(true);
    await dormant.api.post('/v1/retail/monitoring/delete', [{ id: d1.id }]);
  }, 120_000);
});

describe('monitoring run steps repeated as activity retries repeat them', () => {
  const product = (asin: string, status: Product['status'] = 'ok'): Product => ({
    asin, marketplace: 'com', url: `https://www.amazon.com/dp/${asin}`, observed_at: new Date().toISOString(), status, title: status === 'not_found' ? null : 'T',
    byline: [], variant: null, variants: [], price: null, bsr: null, rating: null, ratings_count: null, image_url: null, details: {}, parser_version: 'test', ...version1Fields(),
  });
  /** A subscription with no monitor (added straight through the core rules). */
  async function subscription(login: string, asin: string, balance: number) {
    const { id } = await createAccount(db(), { login, email: `${login}@example.com`, balance });
    const [outcome] = await addSubscriptions(db(), id, [{ asin, marketplace: 'com', frequency: 'daily' }]);
    return { accountId: id, subscriptionId: (outcome as { row: { id: number } }).row.id };
  }

  it('a retried reservation, store or refund charges, stores and refunds once', async () => {
    const { accountId, subscriptionId } = await subscription('retried', 'B0RETRY001', 1);
    const run = { subscriptionId, runKey: 'm:test:run-1' };
    expect(await startMonitoringRun(db(), { ...run, reserve: true })).toBe('reserved');
    expect(await startMonitoringRun(db(), { ...run, reserve: true })).toBe('reserved');
    expect(await monitoringRunRead(db(), run)).toEqual({ state: 'open' });
    const first = await storeMonitoringObservation(db(), { ...run, product: product('B0RETRY001') });
    const again = await storeMonitoringObservation(db(), { ...run, product: product('B0RETRY001') });
    expect(again).toEqual(first);
    expect(first.delivery).toBe('charged');
    expect(await monitoringRunRead(db(), run)).toMatchObject({ state: 'read', observationId: first.observationId });
    expect(await refundMonitoringRun(db(), { runKey: run.runKey })).toBe('delivered');
    expect(await prisma().observation.count({ where: { asin: 'B0RETRY001' } })).toBe(1);
    expect((await prisma().subscription.findUniqueOrThrow({ where: { id: subscriptionId } })).latestObservationId).toBe(first.observationId);

    const failed = { subscriptionId, runKey: 'm:test:run-2' };
    expect(await startMonitoringRun(db(), { ...failed, reserve: true })).toBe('reserved');
    expect(await refundMonitoringRun(db(), { runKey: failed.runKey })).toBe('refunded');
    expect(await refundMonitoringRun(db(), { runKey: failed.runKey })).toBe('refunded');
    await expect(monitoringRunRead(db(), failed)).rejects.toMatchObject({ reason: 'refunded' });
    await expect(storeMonitoringObservation(db(), { ...failed, product: product('B0RETRY001') })).rejects.toBeInstanceOf(MonitoringRunError);
    await expect(monitoringRunRead(db(), { subscriptionId, runKey: 'm:test:never' })).rejects.toMatchObject({ reason: 'not_reserved' });
    expect(await refundMonitoringRun(db(), { runKey: 'm:test:never' })).toBe('none');

    const money = await accountMoney(prisma(), { id: accountId });
    expect(money.entries.map((e) => [e.kind, e.amount])).toEqual([['topup', 1], ['monitoring', -PRICE], ['monitoring', -PRICE], ['refund', PRICE]]);
    expect(money.balance).toBeCloseTo(1 - PRICE, 9);
    expect(await prisma().observation.count({ where: { asin: 'B0RETRY001' } })).toBe(1);
  });

  it('a not_found observation is free; a subscription deleted mid-run stores nothing and is refunded; no reservation without money', async () => {
    const { accountId, subscriptionId } = await subscription('edge', 'B0EDGE0001', PRICE * 1.5);
    const missing = { subscriptionId, runKey: 'm:test:missing' };
    expect(await startMonitoringRun(db(), { ...missing, reserve: true })).toBe('reserved');
    expect((await storeMonitoringObservation(db(), { ...missing, product: product('B0EDGE0001', 'not_found') })).delivery).toBe('free');
    expect((await storeMonitoringObservation(db(), { ...missing, product: product('B0EDGE0001', 'not_found') })).delivery).toBe('free');
    expect((await accountMoney(prisma(), { id: accountId })).balance).toBeCloseTo(PRICE * 1.5, 9);

    const gone = { subscriptionId, runKey: 'm:test:gone' };
    expect(await startMonitoringRun(db(), { ...gone, reserve: true })).toBe('reserved');
    expect(await startMonitoringRun(db(), { subscriptionId, runKey: 'm:test:short', reserve: true })).toBe('paused_balance');
    await prisma().subscription.delete({ where: { id: subscriptionId } });
    await expect(storeMonitoringObservation(db(), { ...gone, product: product('B0EDGE0001') })).rejects.toMatchObject({ reason: 'deleted' });
    expect(await refundMonitoringRun(db(), { runKey: gone.runKey })).toBe('refunded');
    expect(await startMonitoringRun(db(), { subscriptionId, runKey: 'm:test:after', reserve: true })).toBe('deleted');
    expect(await prisma().observation.count({ where: { asin: 'B0EDGE0001' } })).toBe(1); // the free not_found one
    const money = await accountMoney(prisma(), { id: accountId });
    expect(money.balance).toBeCloseTo(PRICE * 1.5, 9);
    expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
  });
});
