/**
 * The `monitorSubscription` workflow on the real Temporal dev server with its activities replaced
 * by in-memory fakes and sub-second intervals: the timer loop, frequency changes, pause and resume,
 * a disabled account, stop and delete, failed reads (refunded), and continue-as-new carrying the
 * state. monitoring.test.ts and monitoring-money.test.ts run the same workflow through the whole stack.
 */
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporalMonitorLauncher } from '../../api/services/monitor-launcher.js';
import { loadConfig } from '../../core/config.js';
import { createLogger } from '../../core/logger.js';
import { startTemporalDevServer, type TemporalDevServer } from '../../core/temporal/dev-server.js';
import { installTemporalLogging, workflowsPath } from '../../worker/worker.js';
import { pageReadQueue } from '../../core/domain/queues.js';
import { SEARCH_ATTRIBUTES } from '../../core/domain/operator-view.js';
import { firstReadOffset } from '../../core/domain/scheduling.js';
import {
  monitorWorkflowId,
  type MonitoringRunStart,
  type MonitorSubscriptionInput,
  type StartMonitoringRunInput,
  type SubscriptionState,
} from '../../core/domain/subscription-messages.js';
import type { ReadProductInput } from '../../core/domain/task-messages.js';
import { configureMonitorSignal, monitorStateQuery, resumeMonitorSignal, stopMonitorSignal } from '../../workflows/definitions.js';
import { waitFor } from '../support/http.js';

const TASK_QUEUE = 'monitor-workflow-test';
let server: TemporalDevServer;
let connection: Connection;
let client: Client;
let nativeConnection: NativeConnection;
let worker: Worker;
let pageReader: Worker;
let running: Promise<void>;

/**
 * Per subscription: reads (ms timestamps), what the database says, what the next reservations
 * answer (`paused`: the balance cannot cover it), reservations made and refunded (run keys).
 */
const reads = new Map<number, number[]>();
const statusOf = new Map<number, SubscriptionState>();
const disabled = new Set<number>();
const statusChecks = new Map<number, number>();
const nextReservations = new Map<number, ('reserved' | 'paused')[]>();
const reserved = new Map<number, string[]>();
const refunded = new Map<number, string[]>();
const failingReads = new Set<number>();
let observationSeq = 0;

const readsOf = (id: number) => reads.get(id)?.length ?? 0;
const push = <T>(map: Map<number, T[]>, id: number, value: T) => map.set(id, [...(map.get(id) ?? []), value]);

const activities = {
  async readProductPage(input: ReadProductInput) {
    const id = input.subscriptionId!;
    // A read only ever happens for a reserved, unrefunded run.
    if (!reserved.get(id)?.includes(input.monitoringRun!) || refunded.get(id)?.includes(input.monitoringRun!)) throw new Error(`read without reservation: ${input.monitoringRun}`);
    push(reads, id, Date.now());
    if (failingReads.has(id)) throw ApplicationFailure.nonRetryable('blocked', 'SourceBlocked');
    return { observationId: String(++observationSeq), status: 'ok' as const, delivery: 'charged' as const };
  },
  async startMonitoringRun(input: StartMonitoringRunInput): Promise<MonitoringRunStart> {
    const id = input.subscriptionId;
    statusChecks.set(id, (statusChecks.get(id) ?? 0) + 1);
    const status = statusOf.get(id) ?? 'active';
    if (status !== 'active') return status;
    if (disabled.has(id)) return 'account_disabled';
    if (!input.reserve) return 'active';
    if (nextReservations.get(id)?.shift() === 'paused') {
      statusOf.set(id, 'paused_balance');
      return 'paused_balance';
    }
    push(reserved, id, input.runKey);
    return 'reserved';
  },
  async refundMonitoringRun(input: { runKey: string }) {
    const id = Number(input.runKey.split(':')[1]);
    push(refunded, id, input.runKey);
    return 'refunded' as const;
  },
};

function input(subscriptionId: number, overrides: Partial<MonitorSubscriptionInput> = {}): MonitorSubscriptionInput {
  return {
    subscriptionId, asin: 'B0000000P1', marketplace: 'de', frequency: 'hourly', intervalMs: 400, paused: false,
    readAttempts: 1, retryInitialMs: 100, ...overrides,
  };
}

async function start(subscriptionId: number, overrides: Partial<MonitorSubscriptionInput> = {}) {
  return client.workflow.start('monitorSubscription', {
    taskQueue: TASK_QUEUE, workflowId: monitorWorkflowId(subscriptionId), args: [input(subscriptionId, overrides)],
  });
}

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/**
 * Waits until the monitor has run its first workflow task and waits on a durable timer: from then
 * on nothing happens until that timer fires or a signal arrives, so what it did so far is final.
 */
async function waitingOnTimer(handle: WorkflowHandle): Promise<void> {
  await waitFor(async () => ((await handle.fetchHistory()).events ?? []).some((e) => e.timerStartedEventAttributes), 20_000, 50);
}

/** The delay before a workflow's first workflow task, ms (its start delay), from its started event. */
function firstTaskBackoffMs(started: HistoryEvent): number {
  const backoff = started.workflowExecutionStartedEventAttributes?.firstWorkflowTaskBackoff;
  return Number(backoff?.seconds ?? 0) * 1_000 + Math.round((backoff?.nanos ?? 0) / 1e6);
}

beforeAll(async () => {
  installTemporalLogging(createLogger('error'));
  server = await startTemporalDevServer({ uiPort: false });
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection });
  nativeConnection = await NativeConnection.connect({ address: server.address });
  worker = await Worker.create({
    connection: nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowsPath: workflowsPath(),
    activities,
  });
  pageReader = await Worker.create({ connection: nativeConnection, taskQueue: pageReadQueue(TASK_QUEUE), activities: { readProductPage: activities.readProductPage } });
  running = Promise.all([worker.run(), pageReader.run()]).then(() => undefined);
});

afterAll(async () => {
  worker?.shutdown();
  pageReader?.shutdown();
  await running?.catch(() => undefined);
  await nativeConnection?.close();
  await connection?.close();
  await server?.stop();
});

describe('monitorSubscription', () => {
  it('reads at the interval, never faster', async () => {
    const handle = await start(1);
    await waitFor(async () => readsOf(1) >= 5, 20_000, 50);
    const times = reads.get(1)!;
    // On a loaded machine a read may come late (the next one then keeps to the schedule), never early.
    expect((times.at(-1)! - times[0]!) / (times.length - 1)).toBeGreaterThanOrEqual(380);
    const state = await handle.query(monitorStateQuery);
    expect(state).toMatchObject({ paused: false, intervalMs: 400 });
    expect(state.deliveries).toBeGreaterThanOrEqual(4);
    await handle.signal(stopMonitorSignal);
    expect(await handle.result()).toMatchObject({ subscriptionId: 1 });
  });

  it('applies a frequency change at once instead of waiting out the old timer', async () => {
    let id = 2;
    while (firstReadOffset(id, 600_000) < 300_000) id++; // a first read far away
    const handle = await start(id, { intervalMs: 600_000, frequency: 'daily' });
    await waitingOnTimer(handle);
    expect(readsOf(id)).toBe(0);
    const changedAt = Date.now();
    await handle.signal(configureMonitorSignal, { frequency: 'hourly', intervalMs: 300 });
    await waitFor(async () => readsOf(id) >= 3, 20_000, 50);
    expect(reads.get(id)![0]! - changedAt).toBeLessThan(10_000); // the old timer had ≥ 5 minutes to go
    expect(await handle.query(monitorStateQuery)).toMatchObject({ frequency: 'hourly', intervalMs: 300 });
    await handle.signal(stopMonitorSignal);
    await handle.result();
  });

  it('started paused it does not read though a read is due; a resume signal makes it check and read at once', async () => {
    statusOf.set(20, 'paused_balance');
    const handle = await start(20, { paused: true, intervalMs: 120_000, firstReadAt: Date.now() });
    await waitingOnTimer(handle);
    expect(readsOf(20)).toBe(0);
    expect(statusChecks.get(20)).toBeUndefined(); // paused: the status is re-checked only every interval (2 min)
    statusOf.set(20, 'active');
    const resumedAt = Date.now();
    await handle.signal(resumeMonitorSignal);
    await waitFor(async () => readsOf(20) >= 1, 20_000, 50);
    expect(reads.get(20)![0]! - resumedAt).toBeLessThan(20_000); // long before the re-check at 2 min
    expect(await handle.query(monitorStateQuery)).toMatchObject({ paused: false });
    await handle.signal(stopMonitorSignal);
    await handle.result();
  });

  it('a run the balance cannot cover pauses before reading; re-checks notice a resume without any signal', async () => {
    nextReservations.set(30, ['reserved', 'paused']);
    const handle = await start(30, { intervalMs: 300 });
    await waitFor(async () => (await handle.query(monitorStateQuery)).paused, 20_000, 50);
    const readsWhenPaused = readsOf(30);
    expect(readsWhenPaused).toBe(1); // the second run was not paid for: nothing was read
    expect(await handle.query(monitorStateQuery)).toMatchObject({ paused: true, pausedReason: 'balance' });
    const checksWhenPaused = statusChecks.get(30)!;
    await waitFor(async () => statusChecks.get(30)! >= checksWhenPaused + 3, 20_000, 50); // re-checks every 300 ms
    expect(readsOf(30)).toBe(readsWhenPaused);
    expect((await handle.query(monitorStateQuery)).deliveries).toBe(1);
    statusOf.set(30, 'active'); // e.g. resumed by a top-up whose signal was lost
    await waitFor(async () => readsOf(30) > readsWhenPaused, 20_000, 50);
    await handle.signal(stopMonitorSignal);
    await handle.result();
  });

  it('a failed read is neither delivered nor a pause: its reservation is refunded and the schedule goes on', async () => {
    failingReads.add(40);
    const handle = await start(40, { intervalMs: 300 });
    await waitFor(async () => readsOf(40) >= 3 && (refunded.get(40)?.length ?? 0) >= 3, 20_000, 50);
    expect(await handle.query(monitorStateQuery)).toMatchObject({ paused: false, deliveries: 0 });
    await handle.signal(stopMonitorSignal);
    await handle.result();
    // Every reservation was refunded, each once, and no two runs shared a key.
    expect([...refunded.get(40)!].sort()).toEqual([...reserved.get(40)!].sort());
    expect(new Set(reserved.get(40)).size).toBe(reserved.get(40)!.length);
  });

  it('a disabled account pauses reading with its reason; a resume signal after enabling reads at once', async () => {
    disabled.add(45);
    const handle = await start(45, { intervalMs: 120_000, firstReadAt: Date.now() });
    await waitFor(async () => (await handle.query(monitorStateQuery)).paused, 20_000, 50);
    expect(await handle.query(monitorStateQuery)).toMatchObject({ paused: true, pausedReason: 'account_disabled' });
    expect(readsOf(45)).toBe(0);
    expect(reserved.get(45)).toBeUndefined(); // nothing charged
    disabled.delete(45);
    await handle.signal(resumeMonitorSignal);
    await waitFor(async () => readsOf(45) >= 1, 20_000, 50);
    const state = await handle.query(monitorStateQuery);
    expect(state.paused).toBe(false);
    expect(state.pausedReason).toBeUndefined();
    await handle.signal(stopMonitorSignal);
    await handle.result();
  });

  it('ends when the status check finds the subscription deleted', async () => {
    const handle = await start(50, { intervalMs: 300 });
    await waitFor(async () => readsOf(50) >= 1, 20_000, 50);
    statusOf.set(50, 'deleted');
    expect(await handle.result()).toMatchObject({ subscriptionId: 50 });
  });

  it('a new monitor started by the launcher answers its state query at once, before its first read; a signal wakes it early', async () => {
    const config = loadConfig({ TEMPORAL_TASK_QUEUE: TASK_QUEUE, MONITORING_INTERVALS: 'hourly=300ms,every_6h=1h,daily=1h', LOG_LEVEL: 'silent' });
    const launcher = temporalMonitorLauncher(client, config);
    const target = { subscriptionId: 70, asin: 'B0000000P1', marketplace: 'de', frequency: 'daily' as const, paused: false, accountId: 7 };
    const before = Date.now();
    await launcher.start(target);
    await launcher.start(target); // idempotent: the running monitor is kept
    const handle = client.workflow.getHandle(monitorWorkflowId(70));
    // Straight after the start, its first read ~minutes away (1 h interval here): the query answers.
    const state = await handle.query(monitorStateQuery);
    expect(state).toMatchObject({ frequency: 'daily', intervalMs: 3_600_000, paused: false, deliveries: 0, run: 1 });
    expect(Math.abs(state.nextDueAt - (before + firstReadOffset(70, 3_600_000)))).toBeLessThanOrEqual(1_000);
    const events = (await handle.fetchHistory()).events ?? [];
    expect(firstTaskBackoffMs(events[0]!)).toBe(0); // not delayed: its first task ran at once and set the timer
    await waitingOnTimer(handle);
    expect(readsOf(70)).toBe(0);
    await launcher.configure({ ...target, frequency: 'hourly' }); // the old first read was ~minutes away
    await waitFor(async () => readsOf(70) >= 2, 20_000, 50);
    await launcher.stop(70);
    expect(await handle.result()).toMatchObject({ subscriptionId: 70 });
    await launcher.stop(70); // ignored once ended
  });

  it('its search attributes survive continue-as-new; ResultCode follows the last read, 40200 while paused for balance', async () => {
    const config = loadConfig({ TEMPORAL_TASK_QUEUE: TASK_QUEUE, MONITORING_INTERVALS: 'hourly=250ms,every_6h=1h,daily=1h', LOG_LEVEL: 'silent' });
    const launcher = temporalMonitorLauncher(client, config, { continueAsNewAfter: 2 });
    await launcher.start({ subscriptionId: 75, asin: 'B0000000P1', marketplace: 'de', frequency: 'hourly', paused: false, accountId: 7, tag: 'kept' });
    const handle = client.workflow.getHandle(monitorWorkflowId(75));
    const firstRunId = (await handle.describe()).runId;
    await waitFor(async () => (await handle.query(monitorStateQuery)).run >= 3, 30_000, 50);
    const latest = await handle.describe();
    expect(latest.runId).not.toBe(firstRunId);
    const custom = Object.fromEntries(latest.typedSearchAttributes.getAll().filter((p) => p.key.name in SEARCH_ATTRIBUTES).map((p) => [p.key.name, p.value]));
    // Summary too: the static summary is the first run's only, the Summary column carries on.
    expect(custom).toEqual({
      SubscriptionId: 75, AccountId: 7, Asin: 'B0000000P1', Marketplace: 'de', Tag: 'kept', ResultCode: 20000, Summary: 'hourly subscription 75: B0000000P1 on de · account 7 · tag kept',
    });
    expect((await handle.query(monitorStateQuery)).lastResultCode).toBe(20000);

    nextReservations.set(75, ['paused']);
    await waitFor(async () => (await handle.describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTES.ResultCode) === 40200, 20_000, 50);
    expect(await handle.query(monitorStateQuery)).toMatchObject({ paused: true, pausedReason: 'balance', lastResultCode: 20000 });
    await handle.signal(stopMonitorSignal);
    await handle.result();
  });

  it('continues as new every N ticks, carrying interval, schedule and counters', async () => {
    const handle = await start(60, { intervalMs: 250, continueAsNewAfter: 2 });
    const firstRunId = handle.firstExecutionRunId;
    await waitFor(async () => readsOf(60) >= 7, 30_000, 50);
    const state = await client.workflow.getHandle(monitorWorkflowId(60)).query(monitorStateQuery);
    expect(state.run).toBeGreaterThanOrEqual(3);
    expect(state.deliveries).toBeGreaterThanOrEqual(6);
    expect(state.intervalMs).toBe(250);
    const first = await client.workflow.getHandle(monitorWorkflowId(60), firstRunId).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');
    expect(new Set(reserved.get(60)).size).toBe(reserved.get(60)!.length); // run keys stay unique across runs
    const times = reads.get(60)!;
    expect((times.at(-1)! - times[0]!) / (times.length - 1)).toBeGreaterThanOrEqual(230); // no burst across runs
    await client.workflow.getHandle(monitorWorkflowId(60)).signal(stopMonitorSignal);
    expect((await client.workflow.getHandle(monitorWorkflowId(60)).result()).deliveries).toBe(readsOf(60));
  });
});
