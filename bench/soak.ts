/**
 * Soak: `npx tsx bench/soak.ts [--db pglite|postgres|both] [--minutes <n>]` (or BENCH_SOAK_MINUTES;
 * default 30 minutes, the issue's soak; `npm run bench -- soak` runs it too).
 *
 * Keeps the worker saturated with reads for the whole time: task_post bodies of 100 tasks over the
 * replay folder's product pages (REUSE_WINDOW=0s, so every task reads its page) whenever fewer
 * than 100 tasks are open. Every 10 s it samples the RSS of the service's process (API, worker and,
 * on PGlite, the database: the worker runs in it, as `npm start` runs it) and of Chromium's
 * processes. After a warm-up (a fifth of the run, at most 5 minutes) the first minute's median RSS
 * is the baseline; the figure is the last minute's median against it, and the extremes of every
 * sample after the warm-up (target: within ±10 %). Each sample also splits the RSS by what the
 * process reports about itself (the service runs in this process): the main thread's V8 heap
 * (used, total), external and ArrayBuffer memory, the parse threads' heaps and PGlite's WASM memory
 * (the gauges of core/metrics.ts), and the rest (native: Node, Temporal's core, code, allocator);
 * the report prints each part at the baseline and in the last minute. Then the service stops, and
 * no Chromium process it started may be left.
 */
import fs from 'node:fs';
import { embeddedDatabaseMemory, parseThreadHeap } from '../core/metrics.js';
import { call } from './http.js';
import { envInt, fmt, p50 } from './machine.js';
import { replayDir, replayProducts } from './pages.js';
import { benchAccount, runPart, sleep } from './stack.js';

const minutesArg = process.argv.indexOf('--minutes');
const MINUTES = minutesArg > 0 ? Number(process.argv[minutesArg + 1]) : envInt('BENCH_SOAK_MINUTES', 30);
if (!(MINUTES > 0)) throw new Error('--minutes: a positive number');
const SAMPLE_MS = 10_000;
/**
 * The service's log lines are captured in this process; the soak reads none of them, so they are
 * dropped as they come (BENCH_SOAK_KEEP_LOGS=1 keeps them all, as the soak did before, to compare).
 */
const KEEP_LOGS = envInt('BENCH_SOAK_KEEP_LOGS', 0) === 1;

/** Processes descending from `root`, with their command name (from /proc). */
function descendants(root: number): { pid: number; comm: string }[] {
  const parent = new Map<number, number>();
  const comm = new Map<number, string>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      comm.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      parent.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
    } catch {
      /* ended meanwhile */
    }
  }
  const out: { pid: number; comm: string }[] = [];
  for (const pid of parent.keys()) {
    for (let p = parent.get(pid) ?? 0, hops = 0; p > 1 && hops < 50; p = parent.get(p) ?? 0, hops++) {
      if (p === root) {
        out.push({ pid, comm: comm.get(pid) ?? '' });
        break;
      }
    }
  }
  return out;
}

/** Resident set of `pid`, MiB (0 when it ended). */
function rssMiB(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

const isChromium = (comm: string): boolean => /chrom/i.test(comm);

const MiB = 1024 * 1024;

/** What the service's process is made of, MiB: the parts `split()` reports. */
interface Split {
  mainHeapUsed: number;
  mainHeapTotal: number;
  external: number;
  arrayBuffers: number;
  threadHeapUsed: number;
  threadHeapTotal: number;
  threads: number;
  wasm: number;
  /** Anonymous memory of the process (/proc/self/smaps_rollup): heaps, allocator arenas, WASM. */
  anonymous: number;
  /** File-backed and shared memory resident: code of Node, its native modules and their libraries. */
  fileBacked: number;
}

const SPLIT_LABELS: Record<keyof Split, string> = {
  mainHeapUsed: 'main thread V8 heap used',
  mainHeapTotal: 'main thread V8 heap total',
  external: 'main thread external (incl. ArrayBuffers)',
  arrayBuffers: 'main thread ArrayBuffers',
  threadHeapUsed: 'parse threads V8 heap used',
  threadHeapTotal: 'parse threads V8 heap total',
  threads: 'parse threads',
  wasm: 'PGlite WASM memory',
  anonymous: 'anonymous memory (smaps)',
  fileBacked: 'file-backed memory (smaps: code)',
};

/** The split of this process's memory (the service runs in it), MiB. */
async function split(): Promise<Split> {
  const m = process.memoryUsage();
  const threads = (await parseThreadHeap.get()).values;
  const sum = (kind: string) => threads.filter((v) => v.labels.kind === kind).reduce((a, v) => a + v.value, 0) / MiB;
  const wasm = (await embeddedDatabaseMemory.get()).values[0]?.value ?? 0;
  const smaps = fs.readFileSync('/proc/self/smaps_rollup', 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(smaps)?.[1] ?? NaN) / 1024;
  return {
    anonymous: kb('Anonymous'), fileBacked: kb('Rss') - kb('Anonymous'),
    mainHeapUsed: m.heapUsed / MiB, mainHeapTotal: m.heapTotal / MiB, external: m.external / MiB, arrayBuffers: m.arrayBuffers / MiB,
    threadHeapUsed: sum('used'), threadHeapTotal: sum('total'), threads: threads.filter((v) => v.labels.kind === 'used').length, wasm: wasm / MiB,
  };
}

/** One sample: when (ms since the start), the service's RSS and split, Chromium's summed RSS and processes, MiB. */
interface Sample {
  at: number;
  rss: number;
  chromium: number;
  chromiumProcs: number;
  split: Split;
}

/**
 * Anonymous memory not accounted for by the V8 heaps of the main and parse threads (their total
 * size), the main thread's external memory (which counts its ArrayBuffers) or PGlite's WASM memory
 * (on the embedded database's thread), MiB: native allocations (Node, Temporal's core and its
 * workflow threads' heaps, the embedded database thread's small V8 heap, the allocator's free
 * lists) and V8 pages a shrinking heap has not handed back yet (so it swings against the main
 * heap's total; the anonymous sum is the steady figure).
 */
const rest = (s: Split): number => s.anonymous - s.mainHeapTotal - s.external - s.threadHeapTotal - s.wasm;

await runPart('soak', `soak: ${MINUTES} min of saturated reads`, { REUSE_WINDOW: '0s' }, async (bench, results) => {
  const account = await benchAccount(bench.db);
  const products = await replayProducts(replayDir());
  const endAt = Date.now() + MINUTES * 60_000;
  const warmupMs = Math.min(5 * 60_000, (MINUTES * 60_000) / 5);
  const startedAt = Date.now();
  const samples: Sample[] = [];
  let posted = 0;
  /** The service's log lines dropped unread, and their JSON text's length (what the soak kept before it dropped them). */
  const dropped = { lines: 0, chars: 0 };
  let next = 0;
  let lastSample = 0;
  while (Date.now() < endAt) {
    if (!KEEP_LOGS) {
      dropped.lines += bench.logs.lines.length;
      for (const line of bench.logs.lines) dropped.chars += JSON.stringify(line).length;
      bench.logs.discard();
    }
    const open = await bench.db.prisma.task.count({ where: { completedAt: null } });
    if (open < 100) {
      const body = Array.from({ length: 100 }, () => {
        const p = products[next++ % products.length]!;
        return { asin: p.asin, marketplace: p.marketplace };
      });
      const r = await call(`${bench.url}/v1/retail/product/task_post`, account.basic, 'POST', body);
      if (r.status !== 200) throw new Error(`task_post failed: ${JSON.stringify(r.body).slice(0, 300)}`);
      posted += 100;
    }
    if (Date.now() - lastSample >= SAMPLE_MS) {
      lastSample = Date.now();
      const chromium = descendants(process.pid).filter((p) => isChromium(p.comm));
      const parts = await split();
      samples.push({ at: lastSample - startedAt, rss: rssMiB(process.pid), chromium: chromium.reduce((a, p) => a + rssMiB(p.pid), 0), chromiumProcs: chromium.length, split: parts });
      const s = samples.at(-1)!;
      if (samples.length % 6 === 1) {
        console.log(
          `  ${(s.at / 60_000).toFixed(1)} min: service RSS ${s.rss.toFixed(0)} MiB (main heap ${parts.mainHeapUsed.toFixed(0)}/${parts.mainHeapTotal.toFixed(0)}, ` +
          `external ${parts.external.toFixed(0)}, parse threads ${parts.threadHeapUsed.toFixed(0)}/${parts.threadHeapTotal.toFixed(0)}, WASM ${parts.wasm.toFixed(0)}, ` +
          `anonymous rest ${rest(parts).toFixed(0)}, file-backed ${parts.fileBacked.toFixed(0)}), Chromium ${s.chromium.toFixed(0)} MiB in ${s.chromiumProcs} processes; ${posted} tasks posted`,
        );
      }
    }
    await sleep(2000);
  }
  const done = await bench.db.prisma.task.count({ where: { completedAt: { not: null } } });
  const after = samples.filter((s) => s.at >= warmupMs);
  const baseSamples = after.filter((s) => s.at < warmupMs + 60_000);
  const lastSamples = after.filter((s) => s.at >= MINUTES * 60_000 - 60_000);
  const baseline = p50(baseSamples.map((s) => s.rss));
  const last = p50(lastSamples.map((s) => s.rss));
  const change = (x: number) => (100 * (x - baseline)) / baseline;
  const lo = Math.min(...after.map((s) => s.rss));
  const hi = Math.max(...after.map((s) => s.rss));
  // The split at the baseline and in the last minute: medians of each part over the same samples.
  const rows: [string, (s: Sample) => number][] = [
    ['service RSS', (s) => s.rss],
    ...(Object.keys(SPLIT_LABELS) as (keyof Split)[]).filter((k) => k !== 'threads').map((k): [string, (s: Sample) => number] => [SPLIT_LABELS[k], (s) => s.split[k]]),
    ['anonymous rest (native: Node, Temporal, allocator)', (s) => rest(s.split)],
  ];
  for (const [label, pick] of rows) {
    const b = p50(baseSamples.map(pick));
    const l = p50(lastSamples.map(pick));
    results.add(`${label}, last minute − baseline`, l - b, 'MiB', { note: `${fmt(b)} → ${fmt(l)} MiB` });
  }
  console.log(`  parse threads: ${samples.at(-1)?.split.threads ?? 0}; service log lines dropped unread: ${dropped.lines} (${fmt(dropped.chars / MiB)} MiB of JSON text)`);
  console.log(`  ${done} tasks read in ${MINUTES} min; warm-up ${(warmupMs / 60_000).toFixed(1)} min; service RSS baseline ${fmt(baseline)} MiB, last minute ${fmt(last)} MiB, range ${fmt(lo)}–${fmt(hi)} MiB`);
  results.add('tasks read', done, 'tasks', { digits: 0, note: `${MINUTES} min` });
  results.add('service RSS, last minute vs baseline', change(last), '%', { target: { op: '<=', limit: 10 }, note: `baseline ${fmt(baseline)} MiB after ${(warmupMs / 60_000).toFixed(1)} min of warm-up` });
  results.add('service RSS, highest sample vs baseline', change(hi), '%', { target: { op: '<=', limit: 10 } });
  results.add('service RSS, lowest sample vs baseline', change(lo), '%', { target: { op: '>=', limit: -10 } });
  results.add('Chromium RSS, last sample', samples.at(-1)?.chromium ?? NaN, 'MiB', { note: `${samples.at(-1)?.chromiumProcs ?? 0} processes` });

  // Stop the service: every Chromium process it started must be gone.
  const browserPids = bench.stack.worker.grid.stats().browsers.flatMap((b) => (b.pid === undefined ? [] : [b.pid]));
  await bench.stop();
  await sleep(2000);
  const left = descendants(process.pid).filter((p) => isChromium(p.comm)).length + browserPids.filter((pid) => rssMiB(pid) > 0).length;
  results.add('Chromium processes left after stop', left, 'processes', { digits: 0, target: { op: '<=', limit: 0 } });
});
