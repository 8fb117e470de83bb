/**
 * `npm run bench:monitoring`: adds 10,000 monitoring subscriptions to one account as 100 requests of
 * 100 through the whole stack on embedded defaults (PGlite, the Temporal CLI dev server with its
 * history in DATA_DIR, the worker with Chromium, the API, all in this process), with the replay
 * server over test/fixtures/replay standing in for the marketplaces and every interval 24 h so page
 * reads do not dominate (each monitor's first read falls at its offset within the first 24 h).
 *
 * Prints the time the adds took (and per-request latencies), the time until the worker had run
 * every new monitor's first workflow task, and this process's RSS (the worker's process) before
 * and after, also after a forced GC, with the worker's sticky-cache size (bounded by
 * MAX_CACHED_WORKFLOWS however many monitors exist).
 *
 *   npm run bench:monitoring -- [--concurrency <requests in flight, default 1>] [--count <subscriptions, default 10000>]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { createAccount, setLimits } from '../api/admin/accounts.js';
import { loadConfig } from '../core/config.js';
import { createLogger } from '../core/logger.js';
import { startReplayServer } from '../replay/server.js';
import { startStack } from '../scripts/stack.js';
import { MAX_CACHED_WORKFLOWS } from '../worker/worker.js';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

/** A GC function: `global.gc` when node runs with --expose-gc, else one exposed at run time. */
function exposeGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

const COUNT = option('count', 10_000);
const CONCURRENCY = option('concurrency', 1);
const PER_REQUEST = 100;
const gc = exposeGc();
/** RSS of this process (API, worker and PGlite's WASM memory) and its V8 heap (API and worker objects). */
const memory = () => {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed };
};
const memText = (m: ReturnType<typeof memory>) => `${mb(m.rss)}  (V8 heap used ${mb(m.heapUsed)})`;

/**
 * CPU seconds (user + system) used so far by this process and by its child processes named
 * `temporal` (the dev server), from /proc: a load-independent measure on a shared machine.
 */
function cpuSeconds(): { self: number; temporal: number } {
  const tick = 100; // USER_HZ on Linux
  let temporalTicks = 0;
  try {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue;
      }
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (comm === 'temporal' && Number(fields[1]) === process.pid) temporalTicks += Number(fields[11]) + Number(fields[12]);
    }
  } catch {
    /* no /proc: only this process */
  }
  const own = process.cpuUsage();
  return { self: (own.user + own.system) / 1e6, temporal: temporalTicks / tick };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-bench-monitoring-'));
const replay = await startReplayServer({ dir: path.join(repoRoot, 'test/fixtures/replay'), port: 0 });
const config = loadConfig({
  DATA_DIR: dataDir, PORT: '0', RETAIL_SOURCE_ORIGIN: replay.url, LOG_LEVEL: 'warn',
  MONITORING_INTERVALS: 'hourly=24h,every_6h=24h,daily=24h',
});
const stack = await startStack(config, createLogger('warn'), { temporalUiPort: false, persistTemporal: !process.argv.includes('--memory-temporal') });
const connection = await Connection.connect({ address: stack.temporalAddress });
const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });

try {
  const account = await createAccount(stack.db, { login: 'bench', email: 'bench@example.com', balance: 100 });
  // 10,000 tasks in a minute is above the standard plan's tasks-per-minute limit.
  await setLimits(stack.db, { login: 'bench', requestsPerMinute: 100_000, tasksPerMinute: 1_000_000 });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${account.api_key}` };
  const post = async (body: unknown) => {
    const res = await fetch(`${stack.api.url}/v1/retail/monitoring/add`, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { status_code: number; tasks: { status_code: number }[] } };
  };
  // Warm-up outside the measurement (connections, authentication, code paths).
  const warm = await fetch(`${stack.api.url}/v1/retail/monitoring/list`, { headers });
  if (warm.status !== 200) throw new Error(`warm-up list failed: HTTP ${warm.status}`);

  await new Promise((r) => setTimeout(r, 2_000)); // let start-up garbage (the workflow bundle build) settle
  gc();
  const before = memory();
  const requests = Array.from({ length: Math.ceil(COUNT / PER_REQUEST) }, (_, r) =>
    Array.from({ length: Math.min(PER_REQUEST, COUNT - r * PER_REQUEST) }, (_, i) => ({
      asin: `B${String(r * PER_REQUEST + i).padStart(9, '0')}`, marketplace: 'de', frequency: 'daily', tag: `batch-${r}`,
    })));
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const cpuBefore = cpuSeconds();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < requests.length) {
      const body = requests[next++]!;
      const started = performance.now();
      const res = await post(body);
      latencies.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
      failures += res.body.tasks.filter((t) => t.status_code !== 20000).length;
      if (latencies.length % 10 === 0) process.stderr.write(`  ${latencies.length * PER_REQUEST} added after ${seconds(performance.now() - t0)}\n`);
    }
  }));
  const addMs = performance.now() - t0;
  const cpuAfter = cpuSeconds();
  const cpu = { self: cpuAfter.self - cpuBefore.self, temporal: cpuAfter.temporal - cpuBefore.temporal };
  const afterAdds = memory();

  // Until the worker has run every new monitor's first workflow task (each then waits on its timer).
  const idleSince = { at: 0 };
  for (;;) {
    const described = await connection.workflowService.describeTaskQueue({
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: { name: config.TEMPORAL_TASK_QUEUE },
      taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      reportStats: true,
    });
    const backlog = Number(described.stats?.approximateBacklogCount ?? 0);
    const status = stack.worker.worker.getStatus();
    if (backlog === 0 && status.numInFlightWorkflowActivations === 0) {
      idleSince.at ||= performance.now();
      if (performance.now() - idleSince.at > 1_000) break;
    } else {
      idleSince.at = 0;
    }
    if (performance.now() - t0 > 300_000) throw new Error(`the worker did not drain within 5 minutes (backlog ${backlog}, ${JSON.stringify(status)})`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const drainedMs = idleSince.at - t0;
  const afterDrain = memory();
  gc();
  const afterGc = memory();

  const stored = await stack.db.prisma.subscription.count({ where: { accountId: account.id } });
  const running = await client.workflow.count('WorkflowType = "monitorSubscription" AND ExecutionStatus = "Running"');
  const cached = stack.worker.worker.getStatus().numCachedWorkflows;
  const sorted = [...latencies].sort((a, b) => a - b);
  const lines = [
    `monitoring add: ${COUNT} subscriptions as ${requests.length} requests of ${PER_REQUEST}, ${CONCURRENCY} in flight (${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, Node ${process.version})`,
    `  adds took              ${seconds(addMs)}  (${Math.round(COUNT / (addMs / 1000))} subscriptions/s; per request p50 ${sorted.length ? percentile(sorted, 50).toFixed(0) : '-'} ms, p95 ${percentile(sorted, 95).toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms)`,
    `  CPU used by the adds   ${cpu.self.toFixed(1)} s this process (API, worker, PGlite) + ${cpu.temporal.toFixed(1)} s Temporal dev server = ${(cpu.self + cpu.temporal).toFixed(1)} CPU-seconds`,
    `  worker drained after   ${seconds(drainedMs)}  (every monitor ran its first workflow task)`,
    `  task failures          ${failures}`,
    `  stored / running       ${stored} subscriptions / ${running.count} monitor workflows`,
    `  worker sticky cache    ${cached} workflows (maxCachedWorkflows ${MAX_CACHED_WORKFLOWS})`,
    `  RSS before             ${memText(before)}, after a GC`,
    `  RSS after the adds     ${memText(afterAdds)}`,
    `  RSS after the drain    ${memText(afterDrain)}`,
    `  RSS after a GC         ${memText(afterGc)}`,
    `  (one process: API, worker and the embedded PGlite; Chromium and the Temporal dev server run in their own processes)`,
  ];
  console.log(lines.join('\n'));
  console.log(JSON.stringify({
    bench: 'monitoring_add', count: COUNT, requests: requests.length, concurrency: CONCURRENCY, add_ms: Math.round(addMs), drained_ms: Math.round(drainedMs),
    failures, stored, running: running.count, cached_workflows: cached, rss_before: before.rss, rss_after_adds: afterAdds.rss,
    rss_after_drain: afterDrain.rss, rss_after_gc: afterGc.rss, heap_before: before.heapUsed, heap_after_gc: afterGc.heapUsed,
    cpu_seconds_self: Number(cpu.self.toFixed(2)), cpu_seconds_temporal: Number(cpu.temporal.toFixed(2)), load_average: os.loadavg()[0],
  }));
  if (failures || stored !== COUNT) process.exitCode = 1;
} finally {
  await connection.close();
  await stack.stop();
  await replay.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
