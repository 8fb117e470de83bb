/**
 * The design's own floor: `npm run bench:floor-parts`. What each part every read of the service
 * pays costs alone, over the same saved pages at the same concurrency (BENCH_FLOOR_CONCURRENCY, 4),
 * beside the floor (HTTP GET + parse5, bench/floor-readers.ts `http`) measured in the same run:
 * - **grid**: the service's browser grid alone (`BrowserGrid.read`, configured as the service's),
 *   BENCH_PARTS_PAGES reads: the CPU of its Chromium, and of this process (CDP, the grid's own work);
 * - **parse**: the service's parser (its thread pool, PARSE_THREADS) over the bytes the grid read:
 *   the CPU of this process, every thread (the parse threads, V8's helpers);
 * - **Temporal**: BENCH_PARTS_PAGES `productTask` workflows started as task_post starts them
 *   (core/temporal/task-launcher.ts, eager start, labels and search attributes), on an embedded
 *   dev server started as the service starts it (SQLite file, the service's dynamic config), their
 *   page read an activity on the page-read queue that answers at once: the dev server's CPU, and
 *   this process's (the SDK: client, workflow thread, worker).
 * Nothing else of a read is in these parts: no database, no API, no bookkeeping. Their sum is what
 * a read costs at the least as long as every task is a workflow with its read an activity, the
 * page is read through the browser grid and parsed in full; its ratio to the floor's CPU per page
 * is the lowest CPU ratio the service can reach without changing that design.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { loadConfig } from '../core/config.js';
import { pageReadQueue } from '../core/domain/queues.js';
import type { ReadProductResult } from '../core/domain/task-messages.js';
import { createLogger } from '../core/logger.js';
import { resolveMarketplace } from '../core/marketplaces.js';
import { startTemporalDevServer } from '../core/temporal/dev-server.js';
import { temporalTaskLauncher } from '../core/temporal/task-launcher.js';
import { BrowserGrid } from '../worker/browser/browser-grid.js';
import { createPageParser } from '../worker/parser/parse-pool.js';
import { connectTemporal, workflowsPath } from '../worker/worker.js';
import { runFloorReader } from './floor-reader-process.js';
import { awaitQuiet, cpuSnapshot, envInt, fmt, ownCpuMs, treeCpuMs } from './machine.js';
import { replayDir, replayProducts } from './pages.js';
import { sleep, startReplayProcess } from './stack.js';

const PAGES = envInt('BENCH_PARTS_PAGES', 300);
const CONCURRENCY = envInt('BENCH_FLOOR_CONCURRENCY', 4);
const WARM_UP = 2 * CONCURRENCY;
const TASK_QUEUE = 'floor-parts';
/** The parts to measure (BENCH_PARTS, comma-separated; default all): grid, parse (reads the grid's pages: runs with it), temporal. */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'grid,parse,temporal').split(',').map((p) => p.trim()));

/** Runs `work(i)` for i in [0, n), `CONCURRENCY` at once. */
async function concurrently(n: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < n) await work(next++);
  }));
}

const replay = await startReplayProcess();
const products = await replayProducts(replayDir());
if (products.length === 0) throw new Error(`no product pages in ${replayDir()}`);
const work = Array.from({ length: PAGES }, (_, i) => products[i % products.length]!);
const config = loadConfig({ ...process.env, RETAIL_SOURCE_ORIGIN: replay.url, BROWSER_MAX_PAGES: String(CONCURRENCY), TEMPORAL_TASK_QUEUE: TASK_QUEUE });
const logger = createLogger('warn', 'floor-parts');
const rows: { part: string; ms: number; note: string }[] = [];
console.log(`floor-parts: ${PAGES} pages over ${products.length} saved product pages, ${CONCURRENCY} at once; replay server ${replay.url} (own process)\n`);

// The floor, as bench/floor-compare.ts measures it.
const domain = (marketplace: string): string => resolveMarketplace(marketplace)!.domain;
await awaitQuiet('floor');
const floor = await runFloorReader({ mode: 'http', urls: work.map((p) => `${replay.url}/${domain(p.marketplace)}/dp/${p.asin}`), concurrency: CONCURRENCY, singles: [], gapMs: 0 });
const floorMs = floor.cpuMs / floor.pages;
console.log(`  floor: ${floor.pages} pages, ${fmt(floorMs, 1)} ms CPU per page`);

/** A page the grid read, kept for the parse. */
interface ReadPage {
  bytes: Uint8Array;
  contentType: string | undefined;
}

/** The grid alone (BrowserGrid, configured as the service's); returns the pages it read. */
async function measureGrid(): Promise<ReadPage[]> {
  const grid = await BrowserGrid.fromConfig(config);
  const read = async (i: number): Promise<ReadPage> => {
    const p = work[i]!;
    const page = await grid.read({ marketplace: resolveMarketplace(p.marketplace)!, asin: p.asin });
    const copy = { bytes: new Uint8Array(page.bytes), contentType: page.contentType };
    page.done?.();
    if (page.httpStatus !== 200) throw new Error(`grid read of ${p.asin}: HTTP ${page.httpStatus}`);
    return copy;
  };
  const pages: ReadPage[] = [];
  try {
    await concurrently(WARM_UP, async (i) => void (await read(i)));
    await awaitQuiet('grid');
    const a = cpuSnapshot();
    await concurrently(PAGES, async (i) => void (pages[i] = await read(i)));
    const b = cpuSnapshot();
    rows.push({ part: 'Chromium (the grid\'s browser)', ms: (treeCpuMs(a, b, process.pid, [replay.child.pid!]) - ownCpuMs(a, b, process.pid)) / PAGES, note: 'every process of the local Chromium' });
    rows.push({ part: 'the grid in this process (CDP)', ms: ownCpuMs(a, b, process.pid) / PAGES, note: 'puppeteer-core, the capture, the grid' });
  } finally {
    await grid.close();
  }
  return pages;
}

/** The parse alone (the service's parse pool, PARSE_THREADS) over `pages`. */
async function measureParse(pages: readonly ReadPage[]): Promise<void> {
  const parser = createPageParser(config.PARSE_THREADS, (error) => console.error('parse thread failed', error), config.READ_NICE);
  const parse = async (i: number): Promise<void> => {
    const page = pages[i]!;
    await parser.parse(new Uint8Array(page.bytes), page.contentType, resolveMarketplace(work[i]!.marketplace)!);
  };
  try {
    await concurrently(WARM_UP, parse);
    await awaitQuiet('parse');
    const a = cpuSnapshot();
    await concurrently(PAGES, parse);
    const b = cpuSnapshot();
    rows.push({ part: 'decode + parse (the parse pool)', ms: ownCpuMs(a, b, process.pid) / PAGES, note: 'this process, every thread' });
  } finally {
    await parser.close();
  }
}

/** Temporal alone: productTask workflows started as task_post starts them, whose read answers at once. */
async function measureTemporal(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'floor-parts-'));
  const server = await startTemporalDevServer({ dbFile: path.join(dir, 'temporal.db'), uiPort: false });
  const connection = await connectTemporal(server.address, logger);
  try {
    const stubRead = async (): Promise<ReadProductResult> => ({ observationId: '1', status: 'ok', statusCode: 20000 });
    const workflows = await Worker.create({ connection, namespace: config.TEMPORAL_NAMESPACE, taskQueue: TASK_QUEUE, workflowsPath: workflowsPath(), activities: {} });
    const reads = await Worker.create({ connection, namespace: config.TEMPORAL_NAMESPACE, taskQueue: pageReadQueue(TASK_QUEUE), activities: { readProductPage: stubRead }, maxConcurrentActivityTaskExecutions: CONCURRENCY });
    const running = Promise.all([workflows.run(), reads.run()]);
    const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
    const launcher = temporalTaskLauncher(client, config, { eagerStart: true });
    const serverPid = [...cpuSnapshot().procs].find(([, p]) => p.comm === 'temporal' && p.ppid === process.pid)?.[0];
    if (serverPid === undefined) throw new Error('the Temporal dev server process was not found');
    let round = 0;
    const tasks = async (n: number): Promise<void> => {
      round++;
      await concurrently(n, async (i) => {
        const taskId = `floor-parts-${round}-${i}`;
        const p = work[i % work.length]!;
        await launcher.start({ taskId, asin: p.asin, marketplace: p.marketplace, accountId: 1, login: 'bench', tag: null, priority: 1 });
        const outcome = (await client.workflow.getHandle(taskId).result()) as { statusCode?: number };
        if (outcome.statusCode !== 20000) throw new Error(`workflow ${taskId} ended with ${JSON.stringify(outcome)}`);
      });
    };
    await tasks(WARM_UP);
    await awaitQuiet('temporal');
    const a = cpuSnapshot();
    await tasks(PAGES);
    const b = cpuSnapshot();
    rows.push({ part: 'Temporal dev server', ms: ownCpuMs(a, b, serverPid) / PAGES, note: 'start, one activity, completion, visibility' });
    rows.push({ part: 'Temporal SDK in this process', ms: ownCpuMs(a, b, process.pid) / PAGES, note: 'client start, workflow thread, workers' });
    workflows.shutdown();
    reads.shutdown();
    await running;
  } finally {
    await connection.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (PARTS.has('grid')) {
  const pages = await measureGrid();
  if (PARTS.has('parse')) await measureParse(pages);
}
if (PARTS.has('temporal')) await measureTemporal();

const total = rows.reduce((s, r) => s + r.ms, 0);
console.log('\n| part of every read | CPU ms per page | ÷ floor CPU | what |');
console.log('|---|---:|---:|---|');
for (const r of rows) console.log(`| ${r.part} | ${fmt(r.ms, 1)} | ${fmt(r.ms / floorMs, 2)}× | ${r.note} |`);
console.log(`| **sum: the design's floor** | **${fmt(total, 1)}** | **${fmt(total / floorMs, 2)}×** | database, API and bookkeeping not included |`);
console.log(`| the floor (HTTP GET + parse5) | ${fmt(floorMs, 1)} | 1.00× | |`);
console.log(`\n  goal CPU per page ≤ 2× the floor = ${fmt(2 * floorMs, 1)} ms; these parts alone take ${fmt(total / floorMs, 2)}× (${total <= 2 * floorMs ? 'within' : 'beyond'} it)`);
replay.child.kill();
await sleep(100);
process.exit(0);
