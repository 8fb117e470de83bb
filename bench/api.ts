/**
 * API benchmark: `npx tsx bench/api.ts [--db pglite|postgres|both]`.
 *
 * On the whole service (`startStack`), with autocannon in its own process:
 * - tasks_ready and task_get: requests/s, p50 and p99 at 50 connections (BENCH_API_SECONDS each,
 *   default 10) over READY completed tasks (BENCH_READY_TASKS, default 100: tasks_ready answers
 *   all of them; task_get cycles over their ids, the first pass collecting them);
 * - task_post with 100-task bodies at 10 connections: accepted tasks/s (counted in the database;
 *   in (b) and (c) over the time to the last answer or the last workflow start, whichever is later),
 *   (a) for products with a stored observation (each task completes at once from the reuse
 *   window: charge, insert, reuse lookup, completion); (b) for products never posted before (a
 *   fresh ASIN in every element of every request, so none comes from the reuse window), with the
 *   worker polling as the service runs: each task starts its `productTask` workflow (eagerly on
 *   the in-process worker when a workflow slot is free) and the worker reads the pages meanwhile
 *   (unknown to the replay server: each a quick 404, refunded); (c) for products never read, after
 *   the worker is stopped, so each task only starts its workflow on the Temporal dev server
 *   (nothing reads the pages, so the browser does not take CPU from the API; no eager start).
 * - the floor of task_get: the same answer as two prepared SQL statements through `pg` in a bare
 *   Koa app (bench/floor.ts), same database, pool size and connections, in the same run.
 * The account has USD 1,000,000 and rate limits of 1e9 per minute.
 */
import { Client, Connection } from '@temporalio/client';
import { storeObservation } from '../core/observations.js';
import { call, runLoad, type LoadResult } from './http.js';
import { sampleProduct } from './pages.js';
import { withCpuProfile } from './profile.js';
import { benchAccount, runPart, type BenchStack } from './stack.js';
import { startFloorServer } from './floor.js';
import { awaitQuiet, cpuSnapshot, cpuText, envInt, postgresCpuMs, processCpuMs, treeCpuByChild, treeCpuMs } from './machine.js';

const SECONDS = envInt('BENCH_API_SECONDS', 10);
const WARMUP_SECONDS = 3;
const READY = Math.min(1000, envInt('BENCH_READY_TASKS', 100));
const CONNECTIONS = 50;
const POST_CONNECTIONS = envInt('BENCH_POST_CONNECTIONS', 10);
const POST_ROUNDS = envInt('BENCH_POST_ROUNDS', 2);

/** BENCH_API_ONLY=task_get,tasks_ready,task_post limits the runs (for profiling one endpoint). */
const ONLY = new Set((process.env.BENCH_API_ONLY ?? 'tasks_ready,task_get,task_post').split(',').map((s) => s.trim()));

/**
 * With TEMPORAL_ADDRESS (a Temporal server of your own, e.g. on PostgreSQL as in the compose
 * topology), BENCH_TEMPORAL_PID names that server's process on this machine so that its CPU (and
 * its children's) counts as Temporal's; without it Temporal's CPU is that of the embedded dev server.
 */
const TEMPORAL_PID = envInt('BENCH_TEMPORAL_PID', 0);

const asin = (prefix: string, i: number): string => `${prefix}${String(i).padStart(10 - prefix.length, '0')}`;

/** Runs `fn` with a Temporal client of the bench's stack on a connection of its own, closed afterwards. */
async function withTemporal<T>(bench: BenchStack, fn: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: bench.stack.temporalAddress });
  try {
    return await fn(new Client({ connection, namespace: bench.stack.config.TEMPORAL_NAMESPACE }));
  } finally {
    await connection.close();
  }
}

/**
 * How many of the workflows of the tasks whose ASIN starts with `prefix` (at most 50, spread over
 * them) the server started eagerly: `eagerExecutionAccepted` on each one's first history event.
 */
async function eagerShare(bench: BenchStack, prefix: string): Promise<{ eager: number; sampled: number }> {
  // Tasks whose start Temporal refused (50301, refunded) have no workflow.
  const rows = await bench.db.prisma.task.findMany({ where: { asin: { startsWith: prefix }, NOT: { statusCode: 50301 } }, select: { id: true }, orderBy: { createdAt: 'asc' } });
  const step = Math.max(1, Math.floor(rows.length / 50));
  const sample = rows.filter((_, i) => i % step === 0).slice(0, 50);
  return withTemporal(bench, async (client) => {
    let eager = 0;
    const refused = await bench.db.prisma.task.count({ where: { asin: { startsWith: prefix }, statusCode: 50301 } });
    if (refused) console.log(`    ${refused} starts refused by Temporal (50301, refunded)`);
    for (const { id } of sample) {
      const { events } = await client.workflow.getHandle(id).fetchHistory();
      if (events?.[0]?.workflowExecutionStartedEventAttributes?.eagerExecutionAccepted) eager++;
    }
    return { eager, sampled: sample.length };
  });
}

/**
 * When the last of `expected` productTask workflows started at or after `sinceMs` (ms since the
 * epoch) was started: waits until Temporal's visibility counts them all (up to 120 s), then takes
 * their latest StartTime. task_post answers before the later starts of its body end, so the last
 * answer is not the last start.
 * @returns ms since the epoch (server and bench share the machine's clock)
 * @throws when fewer than `expected` appear in time
 */
async function lastStartAt(bench: BenchStack, sinceMs: number, expected: number): Promise<number> {
  return withTemporal(bench, async (client) => {
    const query = `WorkflowType = 'productTask' AND StartTime >= '${new Date(sinceMs).toISOString()}'`;
    const deadline = Date.now() + 120_000;
    let counted: number;
    while ((counted = (await client.workflow.count(query)).count) < expected) {
      if (Date.now() > deadline) throw new Error(`only ${counted} of ${expected} workflows started within 120 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    let last = 0;
    for await (const execution of client.workflow.list({ query, pageSize: 1000 })) last = Math.max(last, execution.startTime.getTime());
    return last;
  });
}

await runPart('api', 'API: task_get, tasks_ready, task_post', {}, async (bench, results) => {
  const account = await benchAccount(bench.db);
  const headers = { authorization: account.basic, 'content-type': 'application/json' };
  const base = '/v1/retail/product';

  // Seed: one stored observation per product, then READY tasks that complete at once from them.
  const stored = Array.from({ length: 100 }, (_, i) => asin('BS', i));
  for (const a of stored) await storeObservation(bench.db, sampleProduct(a));
  const ids: string[] = [];
  for (let i = 0; i < READY; i += 100) {
    const body = Array.from({ length: Math.min(100, READY - i) }, (_, j) => ({ asin: stored[(i + j) % stored.length]!, marketplace: 'com', tag: `ready-${i + j}` }));
    const res = await call(`${bench.url}${base}/task_post`, account.basic, 'POST', body);
    if (res.status !== 200 || res.body.tasks_error !== 0) throw new Error(`seeding task_post failed: ${JSON.stringify(res.body).slice(0, 300)}`);
    ids.push(...(res.body.tasks as { id: string }[]).map((t) => t.id));
  }
  const ready = await call(`${bench.url}${base}/tasks_ready`, account.basic, 'GET');
  const readyCount = (ready.body.tasks[0].result as unknown[]).length;
  if (readyCount !== READY) throw new Error(`expected ${READY} ready tasks, tasks_ready lists ${readyCount}`);
  console.log(`  seeded ${stored.length} observations and ${READY} completed tasks; ${CONNECTIONS} connections, ${SECONDS} s per run after a ${WARMUP_SECONDS} s warm-up`);

  const load = async (name: string, requests: { method: 'GET' | 'POST'; path: string; body?: string }[], connections: number): Promise<LoadResult & { serviceCpu: number }> => {
    await runLoad({ url: bench.url, connections, duration: WARMUP_SECONDS, requests, headers, timeout: 60 });
    await awaitQuiet(name);
    const cpuMs = processCpuMs();
    const r = await withCpuProfile(`${name}-${bench.kind}`, () => runLoad({ url: bench.url, connections, duration: SECONDS, requests, headers, timeout: 60 }));
    const bad = r.non2xx + r.errors + r.timeouts;
    console.log(`  ${name}: ${r.requests} requests in ${r.durationSec.toFixed(1)} s, status ${JSON.stringify(r.statusCodes)}${bad ? `, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts` : ''}`);
    const serviceCpu = (processCpuMs() - cpuMs) / r.requests;
    console.log(`    ${cpuText(r.cpu)}; the service used ${serviceCpu.toFixed(2)} ms of CPU per request`);
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    return { ...r, serviceCpu };
  };

  // tasks_ready first: task_get collects the tasks.
  if (ONLY.has('tasks_ready')) {
    const tr = await load('tasks_ready', [{ method: 'GET', path: `${base}/tasks_ready` }], CONNECTIONS);
    results.add(`tasks_ready req/s (${READY} rows, 50 conn)`, tr.reqPerSec, 'req/s', { digits: 0, cpu: tr.cpu });
    results.add('tasks_ready p50', tr.p50, 'ms');
    results.add('tasks_ready p99', tr.p99, 'ms');
    results.add('tasks_ready service CPU per request', tr.serviceCpu, 'ms', { digits: 2 });
  }
  if (ONLY.has('task_get')) {
    const tg = await load('task_get', ids.map((id) => ({ method: 'GET' as const, path: `${base}/task_get/${id}` })), CONNECTIONS);
    results.add('task_get req/s (50 conn)', tg.reqPerSec, 'req/s', { digits: 0, cpu: tg.cpu, target: { op: '>=', limit: 1500, db: 'postgres' } });
    results.add('task_get p50', tg.p50, 'ms');
    results.add('task_get p99', tg.p99, 'ms');
    results.add('task_get service CPU per request', tg.serviceCpu, 'ms', { digits: 2, note: 'API + Prisma + pg client (+ PGlite) in the service process' });

    // The floor: the same answer as 2 prepared statements through pg in a bare Koa app (bench/floor.ts).
    const floor = await startFloorServer(bench.stack.db.url, bench.kind === 'pglite' ? 1 : 10, bench.kind === 'postgres');
    try {
      const requests = ids.map((id) => ({ method: 'GET' as const, path: `${base}/task_get/${id}` }));
      await runLoad({ url: floor.url, connections: CONNECTIONS, duration: WARMUP_SECONDS, requests, headers, timeout: 60 });
      await awaitQuiet('task_get floor');
      const cpuMs = processCpuMs();
      const f = await runLoad({ url: floor.url, connections: CONNECTIONS, duration: SECONDS, requests, headers, timeout: 60 });
      const floorCpu = (processCpuMs() - cpuMs) / f.requests;
      console.log(`  task_get floor (2 SQL statements, no Prisma/rate limit/metering): ${f.requests} requests, ${f.reqPerSec.toFixed(0)} req/s; ${cpuText(f.cpu)}; ${floorCpu.toFixed(2)} ms of CPU per request`);
      if (f.non2xx > 0 || f.errors > 0) throw new Error(`task_get floor: ${f.non2xx} non-2xx answers, ${f.errors} errors`);
      results.add('task_get floor req/s (2 SQL statements)', f.reqPerSec, 'req/s', { digits: 0, cpu: f.cpu, note: `service / floor = ${(tg.reqPerSec / f.reqPerSec).toFixed(2)}` });
      results.add('task_get floor CPU per request', floorCpu, 'ms', { digits: 2 });
    } finally {
      await floor.close();
    }
  }
  if (!ONLY.has('task_post')) return;

  // task_post: each connection sends POST_ROUNDS 100-task bodies; tasks/s = tasks stored / wall time.
  // `asins` null: a fresh ASIN for every element of every request (prefix per load run: the
  // warm-up's and the measured run's never meet).
  const placeholder = '__ASIN__';
  // `starts`: every stored task starts a workflow; the run then lasts to its last answer or its
  // last workflow start, whichever is later.
  const postRun = async (name: string, asins: string[] | null, prefix = 'W', starts = false) => {
    const body = JSON.stringify((asins ?? Array<string>(100).fill(placeholder)).map((a, i) => ({ asin: a, marketplace: 'com', tag: `post-${i}` })));
    const requests = [{ method: 'POST' as const, path: `${base}/task_post`, body }];
    const fresh = (run: string) => (asins ? {} : { freshAsins: { placeholder, prefix: `${prefix}${run}` } });
    await runLoad({ url: bench.url, connections: POST_CONNECTIONS, amount: POST_CONNECTIONS, requests, headers, timeout: 300, ...fresh('A') });
    await awaitQuiet(name);
    const before = await bench.db.prisma.task.count();
    const cpu0 = cpuSnapshot();
    const startedAt = Date.now();
    const r = await withCpuProfile(`${name.replace(/\W+/g, '_')}-${bench.kind}`, () =>
      runLoad({ url: bench.url, connections: POST_CONNECTIONS, amount: POST_CONNECTIONS * POST_ROUNDS, requests, headers, timeout: 300, ...fresh('B') }),
    );
    const accepted = (await bench.db.prisma.task.count()) - before;
    // To the last answer or the last workflow start, whichever is later.
    const startsSec = starts ? (await lastStartAt(bench, startedAt, accepted) - startedAt) / 1000 : 0;
    const seconds = Math.max(r.durationSec, startsSec);
    const cpu1 = cpuSnapshot();
    console.log(`  ${name}: ${r.requests} requests, ${accepted} tasks stored in ${r.durationSec.toFixed(2)} s${starts ? `, their workflows started in ${startsSec.toFixed(2)} s` : ''}, status ${JSON.stringify(r.statusCodes)}${r.errors + r.timeouts ? `, ${r.errors} errors, ${r.timeouts} timeouts` : ''}`);
    console.log(`    ${cpuText(r.cpu)}`);
    // CPU per task by process over the same span (hardly depends on other load, unlike tasks/s):
    // the service's process (API + worker), the Temporal dev server, Chromium, PostgreSQL.
    const byChild = treeCpuByChild(cpu0, cpu1, process.pid);
    const perTask = (ms: number) => (accepted > 0 ? ms / accepted : 0);
    const cpu = {
      service: perTask(byChild.get('service process') ?? 0),
      temporal: perTask(TEMPORAL_PID ? treeCpuMs(cpu0, cpu1, TEMPORAL_PID) : (byChild.get('temporal') ?? 0)),
      chromium: perTask([...byChild].filter(([label]) => /^chrom/i.test(label)).reduce((sum, [, ms]) => sum + ms, 0)),
      postgres: perTask(bench.kind === 'postgres' ? postgresCpuMs(cpu0, cpu1) : 0),
    };
    console.log(`    CPU per task: service process ${cpu.service.toFixed(2)} ms, Temporal ${TEMPORAL_PID ? 'server' : 'dev server'} ${cpu.temporal.toFixed(2)} ms, Chromium ${cpu.chromium.toFixed(2)} ms, PostgreSQL ${cpu.postgres.toFixed(2)} ms`);
    return { tasksPerSec: accepted / seconds, r, accepted, cpu };
  };
  const addCpu = (label: string, cpu: { service: number; temporal: number; chromium: number; postgres: number }) => {
    results.add(`task_post service CPU per task (${label})`, cpu.service, 'ms', { digits: 2, note: 'API + worker (+ PGlite) in the service process' });
    results.add(`task_post Temporal ${TEMPORAL_PID ? 'server' : 'dev server'} CPU per task (${label})`, cpu.temporal, 'ms', { digits: 2 });
  };

  const reuse = await postRun('task_post (reuse window)', stored);
  results.add(`task_post tasks/s (reuse window, ${POST_CONNECTIONS} conn)`, reuse.tasksPerSec, 'tasks/s', { digits: 0, cpu: reuse.r.cpu });
  results.add('task_post p50 per 100-task request', reuse.r.p50, 'ms', { digits: 0 });

  // (b) every task starts a workflow, the worker polling and reading as the service runs.
  const polling = await postRun('task_post (workflow start, worker polling)', null, 'W', true);
  const eager = await eagerShare(bench, 'WB');
  console.log(`    ${eager.eager} of ${eager.sampled} sampled workflows started eagerly`);
  results.add(`task_post tasks/s (workflow start, worker polling, ${POST_CONNECTIONS} conn)`, polling.tasksPerSec, 'tasks/s', {
    digits: 0, cpu: polling.r.cpu, target: { op: '>=', limit: 500, db: 'postgres' }, note: `${eager.eager} of ${eager.sampled} sampled started eagerly`,
  });
  results.add('task_post p50 per 100-task request (workflow, worker polling)', polling.r.p50, 'ms', { digits: 0 });
  addCpu('workflow start, worker polling', polling.cpu);

  // (c) every task starts a workflow; stop the worker first so no page is read meanwhile.
  await bench.stack.worker.stop();
  const stopped = await postRun('task_post (workflow start, worker stopped)', Array.from({ length: 100 }, (_, i) => asin('BF', i)), 'W', true);
  results.add(`task_post tasks/s (workflow start, worker stopped, ${POST_CONNECTIONS} conn)`, stopped.tasksPerSec, 'tasks/s', { digits: 0, cpu: stopped.r.cpu, target: { op: '>=', limit: 500, db: 'postgres' } });
  results.add('task_post p50 per 100-task request (workflow, worker stopped)', stopped.r.p50, 'ms', { digits: 0 });
  addCpu('workflow start, worker stopped', stopped.cpu);
});
