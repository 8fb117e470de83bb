/**
 * Throughput benchmark: `npx tsx bench/throughput.ts [--db pglite|postgres|both]`.
 *
 * BENCH_TASKS (default 1,000) tasks posted with task_post in 100-task bodies, back to back, and
 * run to completion by the worker with the default page concurrency (BROWSER_MAX_PAGES 4, one
 * local Chromium). The tasks cycle over the replay folder's product pages; REUSE_WINDOW=0s so
 * every task reads its page (none completes from an earlier observation).
 * Reports pages read per minute per Chromium (from the first post to the last completion), the
 * p50 / p95 time from task_post to completion (the tasks' completed_at − created_at), and the
 * CPU split while it ran. When the tasks are not all done after BENCH_THROUGHPUT_MAX_S (default
 * 600 s; 1,000 tasks took 433 s on this 2-core VM), measuring stops there: pages/min is taken over
 * that time, and a percentile is reported only when enough tasks finished for it to be exact
 * (tasks still open would all rank above it, since every task was posted within the first seconds).
 */
import { call } from './http.js';
import { replayDir, replayProducts } from './pages.js';
import { withCpuProfile } from './profile.js';
import { benchAccount, runPart, sleep } from './stack.js';
import { awaitQuiet, cpuShare, cpuSnapshot, cpuText, envInt, p50 } from './machine.js';

const TASKS = envInt('BENCH_TASKS', 1000);
/** Measuring stops here even if tasks are still open (keeps `npm run bench` bounded on a busy machine). */
const MAX_MS = envInt('BENCH_THROUGHPUT_MAX_S', 600) * 1000;

await runPart('throughput', `throughput: ${TASKS} queued tasks`, { REUSE_WINDOW: '0s' }, async (bench, results) => {
  const account = await benchAccount(bench.db);
  const products = await replayProducts(replayDir());
  const browsers = bench.stack.worker.grid.stats().browsers.length;
  const maxPages = bench.stack.config.BROWSER_MAX_PAGES;
  console.log(`  ${TASKS} tasks over ${products.length} product pages; ${browsers} Chromium × ${maxPages} pages (BROWSER_MAX_PAGES), REUSE_WINDOW=0s`);

  // Warm the browser, the workflow bundle and the parser with a few reads first.
  const warm = await call(`${bench.url}/v1/retail/product/task_post`, account.basic, 'POST', products.slice(0, 4).map((p) => ({ asin: p.asin, marketplace: p.marketplace })));
  if (warm.status !== 200) throw new Error(`warm-up task_post failed: ${JSON.stringify(warm.body).slice(0, 300)}`);
  for (let i = 0; (await bench.db.prisma.task.count({ where: { completedAt: null } })) > 0; i++) {
    if (i > 600) throw new Error('warm-up tasks did not complete within 60 s');
    await sleep(100);
  }

  await awaitQuiet('throughput');
  const logMark = bench.logs.lines.length;
  const cpu0 = cpuSnapshot();
  const t0 = Date.now();
  const ids: string[] = [];
  await withCpuProfile(`throughput-${bench.kind}`, async () => {
    for (let i = 0; i < TASKS; i += 100) {
      const body = Array.from({ length: Math.min(100, TASKS - i) }, (_, j) => {
        const p = products[(i + j) % products.length]!;
        return { asin: p.asin, marketplace: p.marketplace, tag: `tp-${i + j}` };
      });
      const res = await call(`${bench.url}/v1/retail/product/task_post`, account.basic, 'POST', body);
      if (res.status !== 200 || res.body.tasks_error !== 0) throw new Error(`task_post failed: ${JSON.stringify(res.body).slice(0, 300)}`);
      ids.push(...(res.body.tasks as { id: string }[]).map((t) => t.id));
    }
    const postedMs = Date.now() - t0;
    console.log(`  posted ${ids.length} tasks in ${(postedMs / 1000).toFixed(1)} s`);
    let last = -1;
    for (;;) {
      const open = await bench.db.prisma.task.count({ where: { id: { in: ids }, completedAt: null } });
      if (open === 0) break;
      if (Date.now() - t0 > MAX_MS) {
        console.log(`  stopped measuring after ${MAX_MS / 1000} s with ${open} of ${ids.length} tasks still open (BENCH_THROUGHPUT_MAX_S)`);
        break;
      }
      const done = ids.length - open;
      if (Math.floor(done / 250) !== last) {
        last = Math.floor(done / 250);
        console.log(`  ${done} done after ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      }
      await sleep(500);
    }
  });
  const cpu = cpuShare(cpu0, cpuSnapshot());
  const stoppedAt = Date.now();
  const rows = await bench.db.prisma.task.findMany({ where: { id: { in: ids } }, select: { createdAt: true, completedAt: true, statusCode: true } });
  const done = rows.filter((r) => r.completedAt !== null);
  const all = done.length === rows.length;
  const wallMs = all ? Math.max(...done.map((r) => r.completedAt!.getTime())) - t0 : stoppedAt - t0;
  const latencies = done.map((r) => r.completedAt!.getTime() - r.createdAt.getTime()).sort((a, b) => a - b);
  /** The q-quantile over every posted task, when the finished ones decide it. */
  const exact = (q: number): number => {
    const rank = Math.ceil(q * rows.length) - 1;
    return rank < latencies.length ? latencies[rank]! / 1000 : NaN;
  };
  const failed = done.filter((r) => r.statusCode !== 20000).length;
  const reads = bench.logs.reads(logMark).length;
  const blocked = bench.logs.lines.slice(logMark).filter((l) => l.msg === 'source read blocked').length;
  const loadMs = bench.logs.reads(logMark).map((r) => r.loadMs);
  console.log(`  ${done.length} of ${rows.length} tasks finished in ${(wallMs / 1000).toFixed(1)} s: ${done.length - failed} completed, ${failed} failed; ${reads} pages stored, ${blocked} reads blocked and retried`);
  console.log(`  ${cpuText(cpu)}`);
  const partial = all ? '' : `${done.length} of ${rows.length} done in ${(wallMs / 1000).toFixed(0)} s`;
  results.add('pages per minute per Chromium', (reads + blocked) / (wallMs / 60_000) / browsers, 'pages/min', { digits: 0, cpu, ...(partial && { note: partial }) });
  results.add('tasks completed per minute', (done.length - failed) / (wallMs / 60_000), 'tasks/min', { digits: 0 });
  // More pages than finished tasks: reads whose activity timed out (startToClose) while queued for a page slot, then retried.
  results.add('pages read per finished task', done.length ? (reads + blocked) / done.length : NaN, 'pages', { digits: 2 });
  results.add(`task_post → completion p50 (${rows.length} tasks)`, exact(0.5), 's', { ...(partial && { note: Number.isNaN(exact(0.5)) ? 'fewer than half finished' : 'exact: open tasks rank above it' }) });
  results.add(`task_post → completion p95 (${rows.length} tasks)`, exact(0.95), 's', { ...(partial && Number.isNaN(exact(0.95)) && { note: 'not enough finished' }) });
  results.add('page load (loadMs) p50 under load', p50(loadMs), 'ms', { note: `${maxPages} pages at once` });
  if (failed > 0) results.add('tasks failed', failed, 'tasks', { digits: 0 });
});
