/**
 * Monitoring end to end, over HTTP through the whole stack: real Temporal dev server, real
 * Chromium, embedded PGlite and the replay server over the synthetic pages of test/fixtures/replay,
 * with MONITORING_INTERVALS shortened to seconds. Deliveries at the frequency, a frequency change,
 * pause on balance and resume on top-up, failed reads, delete; list and history show deliveries.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLANS } from '../../core/pricing.js';
import type { Stack } from '../../scripts/stack.js';
import { monitorWorkflowId } from '../../core/domain/subscription-messages.js';
import type { DelayedReplay } from '../support/delayed-replay.js';
import { repoRoot } from '../support/env.js';
import { waitFor, type ApiClient } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { monitoringHelpers, pagePath } from '../support/monitoring.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

const PRICE = PLANS.standard!.rates.monitoring;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let running: TestStack;
let stack: Stack;
let replay: DelayedReplay;
let dataDir: string;
let client: Client;

const { prisma, deliveries, account, add } = monitoringHelpers(() => stack);
const subscription = (id: number) => prisma().subscription.findUniqueOrThrow({ where: { id } });

beforeAll(async () => {
  running = await startTestStack({ env: { MONITORING_INTERVALS: 'hourly=2s,every_6h=4s,daily=1h', SOURCE_READ_ATTEMPTS: '2' } });
  ({ stack, replay, dataDir, client } = running);
});

afterAll(async () => {
  await running?.stop();
});

describe('monitoring through the whole stack', () => {
  let watcher: { id: number; api: ApiClient };
  let subs: { p1: any; n1: any; unknown: any };

  it('delivers at each frequency, charges each delivery (a not_found one is free), and list and history show them', async () => {
    watcher = await account('watcher', 1);
    const [p1, n1, unknown] = await add(watcher.api, [
      { asin: 'B0000000P1', marketplace: 'de', frequency: 'hourly', tag: 'w' },
      { asin: 'B0000000N1', marketplace: 'com', frequency: 'every_6h', tag: 'w' },
      { asin: 'ZZZZZZZZZ3', marketplace: 'com', frequency: 'hourly' },
    ]);
    subs = { p1, n1, unknown };
    expect(p1.status).toBe('active');
    await waitFor(async () => (await deliveries(p1.id)) >= 1 && (await deliveries(n1.id)) >= 1 && (await deliveries(unknown.id)) >= 1, 20_000);

    // Over the window until three more hourly (2 s) and one more every_6h (4 s) deliveries: never
    // more than the intervals allow. A read starts on a slot of its interval's grid, never early,
    // and the next one on the first slot after it ended (core/domain/scheduling.ts
    // `nextDueAfterRead`). On a loaded machine a read may end late, so the deliveries ending in a
    // window can be one more than the slots in it, never more.
    const at = Date.now();
    const before = { p1: await deliveries(p1.id), n1: await deliveries(n1.id) };
    await waitFor(async () => (await deliveries(p1.id)) - before.p1 >= 3 && (await deliveries(n1.id)) - before.n1 >= 1, 20_000, 100);
    const hourly = (await deliveries(p1.id)) - before.p1;
    const every6h = (await deliveries(n1.id)) - before.n1;
    const windowMs = Date.now() - at;
    expect(hourly).toBeLessThanOrEqual(Math.floor(windowMs / 2_000) + 2);
    expect(every6h).toBeLessThanOrEqual(Math.floor(windowMs / 4_000) + 2);
    expect(every6h).toBeLessThanOrEqual(hourly);

    // Charged per delivered observation (reserved before the read); not_found deliveries are free:
    // their reservation is refunded. Deliveries go on: money and deliveries from one snapshot.
    const { money, snapshot } = await prisma().$transaction(async (tx) => {
      const account = await tx.account.findUniqueOrThrow({ where: { id: watcher.id }, select: { balance: true } });
      const entries = await tx.ledgerEntry.findMany({ where: { accountId: watcher.id } });
      return {
        money: { balance: Number(account.balance), ledgerSum: entries.reduce((sum, e) => sum + Number(e.amount), 0), entries: entries.map((e) => ({ ...e, amount: Number(e.amount) })) },
        snapshot: { p1: await tx.observation.count({ where: { subscriptionId: p1.id } }), unknown: await tx.observation.count({ where: { subscriptionId: unknown.id } }) },
      };
    }, { isolationLevel: 'RepeatableRead' });
    const net = (id: number) => money.entries.filter((e) => e.subscriptionId === id).reduce((sum, e) => sum + e.amount, 0);
    const reservations = (id: number) => money.entries.filter((e) => e.subscriptionId === id && e.kind === 'monitoring').length;
    expect(reservations(p1.id)).toBeGreaterThanOrEqual(snapshot.p1); // a run may be reserved and not yet read
    expect(reservations(p1.id)).toBeLessThanOrEqual(snapshot.p1 + 1);
    expect(-net(p1.id)).toBeGreaterThanOrEqual(PRICE * snapshot.p1 - 1e-9);
    expect(-net(unknown.id)).toBeLessThanOrEqual(PRICE + 1e-9); // at most one run of it reserved and not yet read
    expect(reservations(unknown.id)).toBeGreaterThanOrEqual(snapshot.unknown);
    expect(money.ledgerSum).toBeCloseTo(money.balance, 9);

    // Deliveries go on meanwhile: the listed latest is the latest as of some moment during the call.
    const latestAt = async () => (await prisma().observation.findUniqueOrThrow({ where: { id: (await subscription(p1.id)).latestObservationId! } })).observedAt.getTime();
    const latestBefore = await latestAt();
    const list = await watcher.api.get('/v1/retail/monitoring/list?tag=w');
    const latestAfter = await latestAt();
    const listed = list.body.tasks[0].result as any[];
    expect(listed.map((s) => s.id)).toEqual([p1.id, n1.id]);
    expect(listed[0].latest_observation).toMatchObject({ asin: 'B0000000P1', marketplace: 'de' });
    expect(Date.parse(listed[0].latest_observation.observed_at)).toBeGreaterThanOrEqual(latestBefore);
    expect(Date.parse(listed[0].latest_observation.observed_at)).toBeLessThanOrEqual(latestAfter);
    expect(['ok', 'no_bsr']).toContain(listed[0].latest_observation.status);
    expect(listed[0].latest_observation.title).toEqual(expect.any(String));
    expect(listed[1].latest_observation).toMatchObject({ asin: 'B0000000N1', status: 'no_bsr' });
    const all = (await watcher.api.get('/v1/retail/monitoring/list')).body.tasks[0].result as any[];
    expect(all.find((s) => s.id === unknown.id).latest_observation).toMatchObject({ asin: 'ZZZZZZZZZ3', status: 'not_found' });

    const history = await watcher.api.post('/v1/retail/product/history', [{ asin: 'B0000000P1', marketplace: 'de' }]);
    const rows = history.body.tasks[0].result as any[];
    expect(rows.length).toBeGreaterThanOrEqual(snapshot.p1);
    expect(Date.parse(rows[0].observed_at)).toBeGreaterThanOrEqual(Date.parse(listed[0].latest_observation.observed_at));
  }, 90_000);

  // Right after the first test, so that its three subscriptions stop reading before the next tests
  // (their reads would share the page slots with those tests' reads).
  it('delete stops deliveries, ends the monitor and keeps the observations in history', async () => {
    const { p1, n1, unknown } = subs;
    const delivered = await deliveries(p1.id);
    const res = await watcher.api.post('/v1/retail/monitoring/delete', [{ id: p1.id }, { asin: 'B0000000N1', marketplace: 'com' }, { id: unknown.id }, { id: p1.id }]);
    expect(res.body.tasks.map((t: any) => t.status_code)).toEqual([20000, 20000, 20000, 40400]);
    for (const id of [p1.id, n1.id, unknown.id]) {
      await waitFor(async () => (await client.workflow.getHandle(monitorWorkflowId(id)).describe()).status.name === 'COMPLETED', 15_000, 200);
    }
    const hits = () => replay.hits(pagePath('de', 'B0000000P1')) + replay.hits(pagePath('com', 'B0000000N1'));
    const after = hits();
    await sleep(5_000);
    expect(hits()).toBe(after);
    expect(await prisma().observation.count({ where: { asin: 'B0000000P1', marketplace: 'de', subscriptionId: null } })).toBeGreaterThanOrEqual(delivered);
    const history = await watcher.api.post('/v1/retail/product/history', [{ asin: 'B0000000P1', marketplace: 'de' }]);
    expect(history.body.tasks[0].result.length).toBeGreaterThanOrEqual(delivered);
    expect((await watcher.api.get('/v1/retail/monitoring/list')).body.tasks[0].result).toEqual([]);
  }, 60_000);

  it('applies a frequency change promptly, without waiting for the old timer', async () => {
    const [d1] = await add(watcher.api, [{ asin: 'B0000000D1', marketplace: 'com', frequency: 'daily' }]);
    expect(await deliveries(d1.id)).toBe(0); // daily = 1 h here: its first read is far away
    const changedAt = Date.now();
    const [again] = await add(watcher.api, [{ asin: 'B0000000D1', marketplace: 'com', frequency: 'hourly' }]);
    expect(again).toMatchObject({ id: d1.id, frequency: 'hourly' });
    await waitFor(async () => (await deliveries(d1.id)) >= 1, 15_000, 100);
    expect(Date.now() - changedAt).toBeLessThan(15_000); // the old timer had about half an hour to go
    await waitFor(async () => (await deliveries(d1.id)) >= 3, 20_000, 100);
    await watcher.api.post('/v1/retail/monitoring/delete', [{ id: d1.id }]);
  }, 60_000);

  it('a read that fails every attempt (50301) is not charged (its reservation is refunded) and does not pause', async () => {
    const [captcha] = await add(watcher.api, [{ asin: 'B0000000C1', marketplace: 'br', frequency: 'hourly' }]);
    try {
      // Two ticks of two attempts each (1 s apart), 2 s between ticks: ≈ 8 s alone, more under load.
      await waitFor(async () => replay.hits(pagePath('com.br', 'B0000000C1')) >= 4, 45_000, 200);
      expect(await deliveries(captcha.id)).toBe(0);
      // Each run's reservation comes back; the next run may be reserved and not yet refunded.
      await waitFor(async () => {
        const entries = await prisma().ledgerEntry.findMany({ where: { subscriptionId: captcha.id } });
        return entries.length >= 4 && Math.abs(entries.reduce((sum, e) => sum + Number(e.amount), 0)) < 1e-9;
      }, 20_000, 50);
      expect((await subscription(captcha.id)).status).toBe('active');
      expect((await prisma().account.findUniqueOrThrow({ where: { id: watcher.id } })).subscriptionsPaused).toBe(false);
    } finally {
      await watcher.api.post('/v1/retail/monitoring/delete', [{ id: captcha.id }]);
    }
  }, 60_000);

  it('a delivery the balance cannot cover pauses every subscription of the account; reads stop; a top-up resumes them', async () => {
    const thrifty = await account('thrifty', PRICE * 2.5);
    const [t1, j1] = await add(thrifty.api, [
      { asin: 'B0000000T1', marketplace: 'com', frequency: 'hourly' },
      { asin: 'B0000000J1', marketplace: 'jp', frequency: 'hourly' },
    ]);
    await waitFor(async () => (await prisma().account.findUniqueOrThrow({ where: { id: thrifty.id } })).subscriptionsPaused, 30_000, 100);
    expect((await subscription(t1.id)).status).toBe('paused_balance');
    expect((await subscription(j1.id)).status).toBe('paused_balance');
    const money = await accountMoney(prisma(), { id: thrifty.id });
    expect(money.balance).toBeCloseTo(PRICE * 0.5, 9);
    expect(money.entries.filter((e) => e.kind === 'monitoring')).toHaveLength(2);
    const listed = (await thrifty.api.get('/v1/retail/monitoring/list')).body.tasks[0].result as any[];
    expect(listed.map((s) => s.status)).toEqual(['paused_balance', 'paused_balance']);

    // A read already under way when the account paused may still finish (unpaid): let it settle.
    const hits = () => replay.hits(pagePath('com', 'B0000000T1')) + replay.hits(pagePath('co.jp', 'B0000000J1'));
    let pausedHits = hits();
    await waitFor(async () => {
      await sleep(1_500);
      const settled = hits() === pausedHits;
      pausedHits = hits();
      return settled;
    }, 30_000, 0);
    await sleep(1_000);
    // The run that found the balance short read nothing: every stored observation was paid for.
    expect((await deliveries(t1.id)) + (await deliveries(j1.id))).toBe(2);
    expect(await prisma().observation.count({ where: { asin: { in: ['B0000000T1', 'B0000000J1'] } } })).toBe(2);
    await sleep(6_000); // three intervals
    expect(hits()).toBe(pausedHits);

    // The operator's top-up (operations-contract.md `account topup`), from its own process: it finds
    // the embedded Temporal dev server through DATA_DIR and signals the monitors.
    const resumedAt = Date.now();
    const { stdout } = await promisify(execFile)(path.join(repoRoot, 'node_modules/.bin/tsx'), ['api/admin/cli.ts', 'account', 'topup', '--login', 'thrifty', '--amount', '1'], {
      cwd: repoRoot, encoding: 'utf8', env: { PATH: process.env.PATH, DATA_DIR: dataDir },
    });
    expect(JSON.parse(stdout)).toEqual({ login: 'thrifty', balance: expect.closeTo(1 + PRICE * 0.5, 6) });
    expect((await subscription(t1.id)).status).toBe('active');
    expect((await subscription(j1.id)).status).toBe('active');
    expect((await prisma().account.findUniqueOrThrow({ where: { id: thrifty.id } })).subscriptionsPaused).toBe(false);
    await waitFor(async () => (await deliveries(t1.id)) + (await deliveries(j1.id)) >= 4, 20_000, 100);
    expect(Date.now() - resumedAt).toBeLessThan(20_000);
    expect(hits()).toBeGreaterThan(pausedHits);
    for (const id of [t1.id, j1.id]) {
      const { events } = await client.workflow.getHandle(monitorWorkflowId(id)).fetchHistory();
      expect(events!.some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'monitorResume')).toBe(true);
    }
    await thrifty.api.post('/v1/retail/monitoring/delete', [{ id: t1.id }, { id: j1.id }]);
  }, 120_000);
});
