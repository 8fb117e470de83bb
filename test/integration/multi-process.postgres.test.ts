/**
 * Issue 8 acceptance: the production topology as real processes. Two API processes and two worker
 * processes share one PostgreSQL database (a scratch database on DATABASE_URL_TEST) and one Temporal
 * dev server; the replay server stands in for the marketplaces. 500 tasks are posted through both
 * APIs; when a good part of them has finished, one worker is SIGKILLed (its Chromium must die with
 * it) and started again. Every task must then finish once, be listed once by tasks_ready, be
 * charged once, and the ledger must add up to the balance.
 *
 * Entry points: each process runs `node --import tsx api/server.ts` / `node --import tsx
 * worker/main.ts`, the same modules `node dist/api/server.js` / `node dist/worker/main.js` run
 * after `npm run build` (tsc emits them one to one; the standalone path is core/standalone.ts
 * either way), configured only through environment variables, so no build step is needed here.
 *
 * Pages: the product, no_bsr and unavailable rows of the repository's synthetic replay folder
 * (test/fixtures/replay, 6 ASINs of 4 marketplaces, a few hundred bytes each), so the test never
 * depends on ../shared. What is tested here is processes, queues and bookkeeping, not parsing
 * (the walk-through and the parser's golden tests read the real pages): a real saved page costs a
 * Chromium seconds of CPU (10–20 s per load was measured on the shared 2-core machine), which
 * would stretch 500 reads far past the test's budget. Every task is expected to complete with
 * 20000: the replay server always answers, and the kill costs a read at most one of its
 * SOURCE_READ_ATTEMPTS (3), so a 50301 here would mean a read was lost or failed for no reason.
 * The money checks do not depend on that choice: refunds, if any, are accounted for.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import getPort from 'get-port';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createAccount, setLimits } from '../../api/admin/accounts.js';
import { applyMigrations } from '../../core/db/migrator.js';
import { createDb, type Db } from '../../core/db/db.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { MARKETPLACES } from '../../core/marketplaces.js';
import { startTemporalDevServer, type TemporalDevServer } from '../../core/temporal/dev-server.js';
import { loadManifest } from '../../replay/manifest.js';
import { startDelayedReplay, type DelayedReplay } from '../support/delayed-replay.js';
import { createScratchDatabase, syntheticReplayDir } from '../support/env.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { describeNeeding, postgres, type Prerequisite } from '../support/prerequisites.js';
import { childPids, isAlive, spawnNodeEntry, type ServiceProcess } from '../support/processes.js';

const TASKS = 500;
const BODY_SIZE = 50;
/** The victim worker is killed once this many tasks have finished (the brief: 100–200 of 500). */
const KILL_AT = 150;
const OPENING_BALANCE = 1000;
/** Standard plan, task_post priority 1 (core/pricing.ts). */
const TASK_PRICE = 0.0015;
const RUN_TIMEOUT_MS = 10 * 60_000;
/** Command line of the Chromium a worker launches (CHROME_PATH, else /usr/bin/chromium or the like). */
const CHROMIUM = /chrom/i;

const replayDir = syntheticReplayDir;

/** Rows of the folder that the replay server serves as product pages (kinds product, no_bsr, unavailable). */
async function completingPages(dir: string): Promise<{ asin: string; marketplace: string }[]> {
  const manifest = await loadManifest(dir);
  const pages: { asin: string; marketplace: string; file: string }[] = [];
  for (const page of manifest.pages.values()) {
    const marketplace = MARKETPLACES.find((m) => m.domain === page.domain);
    if (marketplace && ['product', 'no_bsr', 'unavailable'].includes(page.kind)) pages.push({ asin: page.asin, marketplace: marketplace.code, file: page.file });
  }
  return pages.sort((a, b) => a.file.localeCompare(b.file)).map(({ asin, marketplace }) => ({ asin, marketplace }));
}

const pages = fs.existsSync(path.join(replayDir, 'MANIFEST.tsv')) ? await completingPages(replayDir) : [];
const replayPages: Prerequisite = { name: 'replay pages', missing: pages.length ? null : `no product pages in ${replayDir}` };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeNeeding([await postgres(), replayPages], '2 API processes and 2 workers on PostgreSQL and one Temporal dev server', () => {
  let workDir = '';
  const taskQueue = `multi-${randomUUID().slice(0, 8)}`;
  const processes: ServiceProcess[] = [];
  const chromiumPids = new Set<number>();
  let keepLogs = false;
  let scratch: { url: string; drop(): Promise<void> } | undefined;
  let db: Db | undefined;
  let prisma: PrismaClient | undefined;
  let temporal: TemporalDevServer | undefined;
  let temporalConnection: Connection | undefined;
  let replay: DelayedReplay | undefined;
  let apis: ApiClient[] = [];
  let workers: ServiceProcess[] = [];
  let workerEnv: Record<string, string> = {};
  let accountId = 0;
  /** Accepted task ids in posting order, with the tag, ASIN and marketplace each was posted with. */
  const accepted: { id: string; tag: string; asin: string; marketplace: string }[] = [];
  /** What the kill hit: the victim's pid, its Chromium pids, tasks finished and still running then. */
  let kill: { pid: number; identity: string; chromium: number[]; finished: number; running: number } | undefined;
  let restarted: ServiceProcess | undefined;
  let started = Date.now();

  /** Output of every process, for failure messages. */
  const outputs = () => processes.map((p) => `--- ${p.name} (pid ${p.pid}, ${p.logFile}) ---\n${p.tail(15)}`).join('\n');

  const startWorker = async (name: string): Promise<ServiceProcess> => {
    // Each worker serves its own /metrics; two on one host need two ports.
    const env = { ...workerEnv, WORKER_METRICS_PORT: String(await getPort()) };
    const worker = spawnNodeEntry({ name, entry: 'worker/main.ts', env, logFile: path.join(workDir, `${name}.log`) });
    processes.push(worker);
    await worker.waitForLog((line) => line.msg === 'worker running', 240_000);
    for (const pid of childPids(worker.pid, CHROMIUM)) chromiumPids.add(pid);
    return worker;
  };

  const finishedCount = () => prisma!.task.count({ where: { accountId, completedAt: { not: null } } });

  beforeEach(({ onTestFailed }) => onTestFailed(() => { keepLogs = true; }));

  beforeAll(async () => {
    started = Date.now();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-multi-'));
    scratch = await createScratchDatabase();
    await applyMigrations(scratch.url);
    db = createDb(scratch.url, 4);
    prisma = db.prisma;
    const account = await createAccount(db, { login: 'multi', email: 'multi@example.com', balance: OPENING_BALANCE });
    accountId = account.id;
    // The plan's default limits (api-spec.md "Limits": per-account rate limit) are not what is
    // tested here; 500 tasks plus the polling and collecting requests must not be refused.
    await setLimits(db, { login: 'multi', requestsPerMinute: 1_000_000, tasksPerMinute: 1_000_000 });
    temporal = await startTemporalDevServer({ uiPort: false, logFile: path.join(workDir, 'temporal.log') });
    replay = await startDelayedReplay(replayDir);

    const common: Record<string, string> = {
      DATABASE_URL: scratch.url,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: taskQueue,
      DATA_DIR: path.join(workDir, 'data'),
      RETAIL_SOURCE_ORIGIN: replay.url,
      // Every task reads its page; otherwise repeated ASINs complete from a stored observation.
      REUSE_WINDOW: '0s',
      LOG_LEVEL: 'info',
      ...(process.env.CHROME_PATH ? { CHROME_PATH: process.env.CHROME_PATH } : {}),
      ...(process.env.TEMPORAL_CLI_PATH ? { TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH } : {}),
    };
    // Two Chromiums of 3 pages each on a 2-core machine.
    workerEnv = { ...common, BROWSER_MAX_PAGES: '3' };
    const apiProcesses = await Promise.all(['api-1', 'api-2'].map(async (name) => {
      const port = await getPort();
      const api = spawnNodeEntry({ name, entry: 'api/server.ts', env: { ...common, PORT: String(port) }, logFile: path.join(workDir, `${name}.log`) });
      processes.push(api);
      return { api, url: `http://127.0.0.1:${port}` };
    }));
    workers = await Promise.all(['worker-1', 'worker-2'].map((name) => startWorker(name)));
    for (const { api, url } of apiProcesses) {
      // GET /ready: the database answers and every migration is applied.
      await waitFor(async () => {
        if (api.hasExited()) throw new Error(`${api.name} exited at start:\n${api.tail()}`);
        return (await fetch(`${url}/ready`).then((r) => r.status, () => 0)) === 200;
      }, 120_000, 500);
    }
    apis = apiProcesses.map(({ url }) => apiClient(url, { login: 'multi', key: account.api_key }));
  }, 420_000);

  afterAll(async () => {
    await temporalConnection?.close();
    await Promise.all(processes.map((p) => p.stop(15_000)));
    for (const pid of chromiumPids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await replay?.close();
    await temporal?.stop();
    await db?.close();
    await scratch?.drop();
    if (keepLogs) console.warn(`multi-process test: logs kept in ${workDir}`);
    else if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
    console.info(`multi-process test: ${((Date.now() - started) / 1000).toFixed(0)} s from setup to teardown`);
  }, 120_000);

  it(`accepts ${TASKS} tasks posted through both API processes at once`, async () => {
    const bodies = Array.from({ length: TASKS / BODY_SIZE }, (_, b) => Array.from({ length: BODY_SIZE }, (_, j) => {
      const i = b * BODY_SIZE + j;
      const page = pages[i % pages.length]!;
      return { asin: page.asin, marketplace: page.marketplace, tag: `multi-${i}` };
    }));
    // Body b goes to API b % 2; both APIs receive their bodies concurrently, each in order.
    const answers = await Promise.all(apis.map(async (api, a) => {
      const out: { body: (typeof bodies)[number]; res: Awaited<ReturnType<ApiClient['post']>> }[] = [];
      for (let b = a; b < bodies.length; b += apis.length) out.push({ body: bodies[b]!, res: await api.post('/v1/retail/product/task_post', bodies[b]) });
      return out;
    }));
    for (const { body, res } of answers.flat()) {
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
      expect(res.body.tasks_count).toBe(body.length);
      expect(res.body.tasks_error).toBe(0);
      for (const [j, task] of (res.body.tasks as any[]).entries()) {
        expect(task.status_code).toBe(20100);
        expect(task.data.tag).toBe(body[j]!.tag);
        accepted.push({ id: task.id, tag: body[j]!.tag, asin: body[j]!.asin, marketplace: body[j]!.marketplace });
      }
    }
    expect(accepted).toHaveLength(TASKS);
    expect(new Set(accepted.map((t) => t.id)).size).toBe(TASKS);
    expect(await prisma!.task.count({ where: { accountId } })).toBe(TASKS);
  }, 300_000);

  /** True when a running productTask has a started page read on the worker with this identity. */
  async function holdsRead(identity: string): Promise<boolean> {
    temporalConnection ??= await Connection.connect({ address: temporal!.address });
    const client = new Client({ connection: temporalConnection, namespace: 'default' });
    const running: string[] = [];
    for await (const wf of client.workflow.list({ query: `WorkflowType = 'productTask' AND ExecutionStatus = 'Running'` })) running.push(wf.workflowId);
    // Visibility lists the newest first; the reads under way are on the oldest.
    running.reverse();
    for (let i = 0; i < running.length; i += 20) {
      const described = await Promise.all(running.slice(i, i + 20).map((id) => client.workflow.getHandle(id).describe().catch(() => null)));
      const held = described.some((d) =>
        (d?.raw.pendingActivities ?? []).some(
          (a) =>
            a.activityType?.name === 'readProductPage' &&
            a.state === proto.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED &&
            a.lastWorkerIdentity === identity,
        ));
      if (held) return true;
    }
    return false;
  }

  it('finishes every task while one worker is SIGKILLed mid-run and restarted', async () => {
    const victim = workers[1]!;
    await waitFor(async () => (await finishedCount()) >= KILL_AT, RUN_TIMEOUT_MS, 250).catch((error: Error) => {
      throw new Error(`${error.message} waiting for ${KILL_AT} finished tasks\n${outputs()}`);
    });
    // The marketplace stops answering until the restarted worker runs. Once every page of both
    // workers (BROWSER_MAX_PAGES each) waits at the gate, the victim surely holds started reads when
    // it dies (their retry elsewhere, after the heartbeat timeout, is what the last test looks for),
    // and work is left for the restarted worker however fast the other one reads.
    replay!.hold();
    const pagesInFlight = 2 * Number(workerEnv.BROWSER_MAX_PAGES);
    await waitFor(async () => replay!.held() >= pagesInFlight && (await holdsRead(`${victim.pid}@${os.hostname()}`)), 60_000, 100).catch((error: Error) => {
      throw new Error(`${error.message} waiting for ${victim.name} to hold page reads (${replay!.held()} requests held)\n${outputs()}`);
    });
    const ownChromium = childPids(victim.pid, CHROMIUM);
    victim.signalGroup('SIGKILL');
    const [finished, running] = await Promise.all([finishedCount(), prisma!.task.count({ where: { accountId, state: 'running' } })]);
    const exit = await victim.exited;
    kill = { pid: victim.pid, identity: `${victim.pid}@${os.hostname()}`, chromium: ownChromium, finished, running };
    expect(exit.signal).toBe('SIGKILL');
    // The kill came mid-run: work was left to do, and the victim had been reading pages.
    expect(finished).toBeLessThan(TASKS);
    expect(victim.logLines().filter((l) => l.msg === 'observation stored').length).toBeGreaterThan(0);
    // A worker that dies without a graceful stop leaves no Chromium behind.
    expect(ownChromium.length).toBeGreaterThan(0);
    await waitFor(async () => ownChromium.every((pid) => !isAlive(pid)), 10_000, 200).catch(() => {
      throw new Error(`the killed worker's Chromium (pids ${ownChromium.join(', ')}) outlived it`);
    });

    await sleep(3_000);
    restarted = await startWorker('worker-2-restarted').finally(() => replay!.release());
    workers[1] = restarted;

    await waitFor(async () => (await finishedCount()) === TASKS, RUN_TIMEOUT_MS, 1_000).catch(async (error: Error) => {
      throw new Error(`${error.message}: ${await finishedCount()} of ${TASKS} finished\n${outputs()}`);
    });
    for (const worker of workers) expect(worker.hasExited(), `${worker.name} exited:\n${worker.tail()}`).toBe(false);
    // The restarted worker took part.
    expect(restarted.logLines().filter((l) => l.msg === 'observation stored').length).toBeGreaterThan(0);
  }, RUN_TIMEOUT_MS * 2 + 300_000);

  it('tasks_ready and task_get, alternating between the APIs, return every task exactly once with its Product', async () => {
    const listed: string[] = [];
    const codes = new Map<string, number>();
    const byId = new Map(accepted.map((t) => [t.id, t]));
    for (let round = 0; ; round++) {
      const ready = await apis[round % 2]!.get('/v1/retail/product/tasks_ready');
      expect(ready.status).toBe(200);
      const rows = ready.body.tasks[0].result as { id: string; tag: string; asin: string; status_code: number }[];
      if (rows.length === 0) break;
      expect(round, 'tasks_ready keeps listing collected tasks').toBeLessThan(10);
      for (const [j, row] of rows.entries()) {
        listed.push(row.id);
        const posted = byId.get(row.id);
        expect(posted, `tasks_ready listed a task that was never accepted: ${row.id}`).toBeDefined();
        expect(row.tag).toBe(posted!.tag);
        const got = await apis[(round + j) % 2]!.get(`/v1/retail/product/task_get/${row.id}`);
        expect(got.status).toBe(200);
        const task = got.body.tasks[0];
        codes.set(row.id, task.status_code);
        expect(task.status_code, `${posted!.tag} ${posted!.marketplace}:${posted!.asin}`).toBe(20000);
        expect(task.data.tag).toBe(posted!.tag);
        expect(task.result).toHaveLength(1);
        expect(task.result[0]).toMatchObject({ asin: posted!.asin, marketplace: posted!.marketplace });
      }
    }
    // None lost, none duplicated.
    expect(listed).toHaveLength(TASKS);
    expect(new Set(listed)).toEqual(new Set(accepted.map((t) => t.id)));
    expect([...codes.values()].every((code) => code === 20000)).toBe(true);
  }, 300_000);

  it('charges each task exactly once, and the ledger adds up to the balance', async () => {
    const ids = accepted.map((t) => t.id);
    const entries = await prisma!.ledgerEntry.findMany({ where: { accountId }, select: { kind: true, amount: true, taskId: true } });
    const charges = entries.filter((e) => e.kind === 'charge');
    const refunds = entries.filter((e) => e.kind === 'refund');
    const perTask = new Map<string, number>();
    for (const charge of charges) perTask.set(charge.taskId ?? 'none', (perTask.get(charge.taskId ?? 'none') ?? 0) + 1);
    expect(charges).toHaveLength(TASKS);
    expect(new Set(perTask.keys())).toEqual(new Set(ids));
    expect([...perTask.values()].every((n) => n === 1)).toBe(true);
    for (const charge of charges) expect(Number(charge.amount)).toBeCloseTo(-TASK_PRICE, 9);
    // Refunds only for tasks that did not complete (none expected), once each.
    const failed = await prisma!.task.findMany({ where: { accountId, state: 'failed' }, select: { id: true } });
    expect(refunds.map((r) => r.taskId).sort()).toEqual(failed.map((t) => t.id).sort());

    const account = await prisma!.account.findUniqueOrThrow({ where: { id: accountId }, select: { balance: true } });
    const ledgerSum = entries.reduce((sum, e) => sum + Math.round(Number(e.amount) * 1e6), 0);
    expect(Math.round(Number(account.balance) * 1e6)).toBe(ledgerSum);
    expect(Number(account.balance)).toBeCloseTo(OPENING_BALANCE - TASK_PRICE * (TASKS - failed.length), 6);
    const costs = await prisma!.task.aggregate({ where: { accountId }, _sum: { cost: true } });
    expect(Number(costs._sum.cost)).toBeCloseTo(TASK_PRICE * (TASKS - failed.length), 6);
  });

  it('completes each task from its own read; Temporal ran one productTask per task and retried the reads the killed worker held', async () => {
    const tasks = await prisma!.task.findMany({
      where: { accountId },
      select: { id: true, asin: true, marketplace: true, state: true, reused: true, observation: { select: { id: true, asin: true, marketplace: true } } },
    });
    for (const task of tasks) {
      expect(task.state).toBe('completed');
      expect(task.reused).toBe(false);
      expect(task.observation).toMatchObject({ asin: task.asin, marketplace: task.marketplace });
    }
    expect(new Set(tasks.map((t) => t.observation!.id)).size).toBe(TASKS);

    const connection = await Connection.connect({ address: temporal!.address });
    try {
      const client = new Client({ connection, namespace: 'default' });
      // One run per task (workflowId = task id), every one completed.
      const runs = await waitFor(async () => {
        const list: { workflowId: string; status: string }[] = [];
        for await (const wf of client.workflow.list({ query: `WorkflowType = 'productTask'` })) list.push({ workflowId: wf.workflowId, status: wf.status.name });
        return list.length >= TASKS && list.every((r) => r.status === 'COMPLETED') ? list : null;
      }, 60_000, 1_000);
      expect(runs).toHaveLength(TASKS);
      expect(new Set(runs.map((r) => r.workflowId))).toEqual(new Set(accepted.map((t) => t.id)));

      // Reads the victim held when it died were retried elsewhere: their last attempt started
      // after a heartbeat (or start-to-close) timeout of the attempt on the killed worker.
      let retriedAfterTimeout = 0;
      const completedBy = new Map<string, number>();
      for (let i = 0; i < accepted.length; i += 20) {
        const histories = await Promise.all(accepted.slice(i, i + 20).map((t) => client.workflow.getHandle(t.id).fetchHistory()));
        for (const history of histories) {
          const reads = new Set<string>();
          for (const event of history.events ?? []) {
            const scheduled = event.activityTaskScheduledEventAttributes;
            if (scheduled?.activityType?.name === 'readProductPage') reads.add(String(event.eventId));
            const start = event.activityTaskStartedEventAttributes;
            if (start && reads.has(String(start.scheduledEventId)) && (start.attempt ?? 1) > 1 && start.lastFailure?.timeoutFailureInfo) retriedAfterTimeout++;
            const done = event.activityTaskCompletedEventAttributes;
            if (done && reads.has(String(done.scheduledEventId))) completedBy.set(done.identity ?? '?', (completedBy.get(done.identity ?? '?') ?? 0) + 1);
          }
        }
      }
      const observations = await prisma!.observation.count();
      console.info(`multi-process test: killed worker ${kill?.identity} at ${kill?.finished} finished tasks (${kill?.running} in state running); ` +
        `${retriedAfterTimeout} reads retried after a timeout; reads completed by ${JSON.stringify(Object.fromEntries(completedBy))}; ` +
        `${observations} observations stored for ${TASKS} tasks`);
      expect(retriedAfterTimeout).toBeGreaterThan(0);
      expect([...completedBy.values()].reduce((a, b) => a + b, 0)).toBe(TASKS);
      expect(completedBy.get(`${restarted!.pid}@${os.hostname()}`) ?? 0).toBeGreaterThan(0);
    } finally {
      await connection.close();
    }
  }, 300_000);

  it('every API and worker process stops gracefully on SIGTERM', async () => {
    const live = processes.filter((p) => !p.hasExited());
    expect(live).toHaveLength(4);
    const exits = await Promise.all(live.map(async (p) => ({ name: p.name, ...(await p.stop(30_000)) })));
    for (const exit of exits) expect(exit, `${exit.name}:\n${processes.find((p) => p.name === exit.name)!.tail()}`).toMatchObject({ code: 0, graceful: true });
    await waitFor(async () => [...chromiumPids].every((pid) => !isAlive(pid)), 10_000, 200);
  }, 120_000);
});
