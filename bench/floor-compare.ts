/**
 * The service against the floor, side by side in one run: `npx tsx bench/floor-compare.ts [--db pglite|postgres|both]`.
 *
 * Three readers over the same saved product pages, served on loopback by one replay server in a
 * process of its own (its CPU is nobody's), each at the same concurrency (BENCH_FLOOR_CONCURRENCY, 4):
 * - the floor: HTTP GET + parse5 parse, no browser (bench/floor-readers.ts `http`);
 * - a plain puppeteer-core script: goto + content, document only, JavaScript off, 4 pages at once
 *   (bench/floor-readers.ts `puppeteer`), then the same parse5 parse, over the first
 *   BENCH_FLOOR_PUPPETEER_PAGES of the pages (all of them by default);
 * - the service: BENCH_FLOOR_PAGES tasks (300) posted with task_post (100-task bodies: the first
 *   saturates the worker, the others follow one a second, each timed as a task_post made during a
 *   saturated run) and collected through tasks_ready; REUSE_WINDOW=0s so every task reads its page,
 *   BROWSER_MAX_PAGES = the concurrency.
 * For each: pages per minute, machine CPU-seconds per page (from /proc: the floor's process; the
 * script's process and its Chromium; the service's process tree: API, worker, PGlite, Temporal
 * dev server, Chromium, plus the PostgreSQL server's processes on PostgreSQL), and the latency of one
 * read, p50 / p95, over BENCH_FLOOR_READS (20) reads one at a time, BENCH_FLOOR_GAP_MS (500) apart
 * (the service: fresh live reads, `max_age_minutes: 0`, measured from the client process).
 * Then the issue's goals, each a ratio to the floor measured in the same run.
 */
import { MARKETPLACES } from '../core/marketplaces.js';
import { resolveChromePath } from '../worker/browser/chrome-path.js';
import { call } from './http.js';
import { runFloorReader } from './floor-reader-process.js';
import { awaitQuiet, chromiumCpuByType, cpuShareOfTree, cpuSnapshot, cpuText, envInt, fmt, p50, p95, postgresCpuMs, treeCpuByChild, treeCpuMs, type CpuShare } from './machine.js';
import { replayDir, replayProducts, type ReplayProduct } from './pages.js';
import { withCpuProfile } from './profile.js';
import { benchAccount, runPart, sleep, startReplayProcess } from './stack.js';

const PAGES = envInt('BENCH_FLOOR_PAGES', 300);
const CONCURRENCY = envInt('BENCH_FLOOR_CONCURRENCY', 4);
const READS = envInt('BENCH_FLOOR_READS', 20);
/** Pages the puppeteer script reads (its per-page figures need fewer than the others: it is the slowest by far). */
const PUPPETEER_PAGES = Math.min(PAGES, envInt('BENCH_FLOOR_PUPPETEER_PAGES', PAGES));
const GAP_MS = envInt('BENCH_FLOOR_GAP_MS', 500);
/** Measuring the service stops here even if tasks are still open. */
const MAX_MS = envInt('BENCH_FLOOR_MAX_S', 900) * 1000;
if (PAGES > 1000) throw new Error('BENCH_FLOOR_PAGES: at most 1,000 (tasks_ready answers at most 1,000 tasks)');

/** One reader's figures. */
interface ReaderFigures {
  pagesPerMin: number;
  cpuSPerPage: number;
  p50: number;
  p95: number;
  cpu: CpuShare;
  note: string;
}

const replayProcess = await startReplayProcess();
const origin = replayProcess.url;

await runPart('floor', `floor: the service, a puppeteer script and HTTP GET + parse5 over the same pages, ${CONCURRENCY} at once`, {
  REUSE_WINDOW: '0s', RETAIL_SOURCE_ORIGIN: origin, BROWSER_MAX_PAGES: String(CONCURRENCY),
}, async (bench, results) => {
  const products = await replayProducts(replayDir());
  if (products.length === 0) throw new Error(`no product pages in ${replayDir()}`);
  const domain = (p: ReplayProduct) => MARKETPLACES.find((m) => m.code === p.marketplace)!.domain;
  const pageUrl = (p: ReplayProduct) => `${origin}/${domain(p)}/dp/${p.asin}`;
  const work = Array.from({ length: PAGES }, (_, i) => products[i % products.length]!);
  // The single reads take other pages first, in another order: no reader meets a page it just read.
  const singles = Array.from({ length: READS }, (_, i) => products[products.length - 1 - ((i * 7) % products.length)]!);
  console.log(`  ${PAGES} pages over ${products.length} saved product pages, ${CONCURRENCY} at once; ${READS} single reads ${GAP_MS} ms apart; replay server ${origin} (own process); the service reads with ${process.env.BROWSER_WS_ENDPOINTS ? 'BROWSER_WS_ENDPOINTS' : resolveChromePath(process.env.CHROME_PATH)}`);
  const figures: Record<'floor' | 'puppeteer' | 'service', ReaderFigures> = {} as never;

  for (const mode of ['http', 'puppeteer'] as const) {
    const name = mode === 'http' ? 'floor' : 'puppeteer';
    await awaitQuiet(name);
    const before = cpuSnapshot();
    const answer = await runFloorReader({
      mode, urls: (mode === 'puppeteer' ? work.slice(0, PUPPETEER_PAGES) : work).map(pageUrl), concurrency: CONCURRENCY, singles: singles.map(pageUrl), gapMs: GAP_MS,
      ...(process.env.CHROME_PATH && { chromePath: process.env.CHROME_PATH }),
    });
    const share = cpuShareOfTree(before, cpuSnapshot());
    if (answer.failures.length) console.log(`  ${name}: ${answer.failures.length} failed reads, e.g. ${answer.failures.slice(0, 3).join('; ')}`);
    figures[name] = {
      pagesPerMin: answer.pages / (answer.wallMs / 60_000), cpuSPerPage: answer.cpuMs / 1000 / answer.pages,
      p50: p50(answer.singleMs), p95: p95(answer.singleMs), cpu: share,
      note: `${answer.pages} pages in ${(answer.wallMs / 1000).toFixed(1)} s`,
    };
    console.log(`  ${name}: ${figures[name].note}; ${cpuText(share)}`);
  }

  // The service: warm the browser, the workflow bundle and the parser first.
  const account = await benchAccount(bench.db);
  const api = (path: string) => `${bench.url}/v1/retail/product/${path}`;
  for (const p of products.slice(0, CONCURRENCY * 2)) {
    const r = await call(api('live'), account.basic, 'POST', [{ asin: p.asin, marketplace: p.marketplace, max_age_minutes: 0 }]);
    if (r.body.tasks?.[0]?.status_code !== 20000) throw new Error(`warm-up live read failed: ${JSON.stringify(r.body).slice(0, 300)}`);
  }
  await awaitQuiet('service');
  const replayPid = replayProcess.child.pid!;
  const cpu0 = cpuSnapshot();
  const t0 = performance.now();
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  const postMs: number[] = [];
  let postedAll = false;
  await withCpuProfile(`floor-${bench.kind}`, async () => {
    const post = async (from: number) => {
      const body = work.slice(from, from + 100).map((p, j) => ({ asin: p.asin, marketplace: p.marketplace, tag: `floor-${from + j}` }));
      const r = await call(api('task_post'), account.basic, 'POST', body);
      if (r.status !== 200 || r.body.tasks_error !== 0) throw new Error(`task_post failed: ${JSON.stringify(r.body).slice(0, 300)}`);
      for (const t of r.body.tasks as { id: string }[]) ids.add(t.id);
      return r.ms;
    };
    await post(0);
    const posting = (async () => {
      for (let i = 100; i < PAGES; i += 100) {
        await sleep(1000);
        postMs.push(await post(i));
      }
      postedAll = true;
    })();
    while (!postedAll || seen.size < ids.size) {
      if (performance.now() - t0 > MAX_MS) break;
      await sleep(500);
      const r = await call(api('tasks_ready'), account.basic, 'GET');
      const now = performance.now();
      // One task whose result lists the finished, uncollected tasks (api/rest/envelope/tasks-ready.ts).
      const ready = (r.body.tasks?.[0]?.result ?? []) as { id: string }[];
      for (const t of ready) if (ids.has(t.id) && !seen.has(t.id)) seen.set(t.id, now);
    }
    await posting;
  });
  const cpu1 = cpuSnapshot();
  const wallMs = Math.max(...seen.values()) - t0;
  const serviceCpuMs = treeCpuMs(cpu0, cpu1, process.pid, [replayPid]) + (bench.kind === 'postgres' ? postgresCpuMs(cpu0, cpu1) : 0);
  const serviceShare = cpuShareOfTree(cpu0, cpu1);
  const split = [...treeCpuByChild(cpu0, cpu1, process.pid, [replayPid])].filter(([, ms]) => ms > 0).sort((x, y) => y[1] - x[1]);
  console.log(`  service CPU per page by process: ${split.map(([label, ms]) => `${label} ${(ms / seen.size).toFixed(0)} ms`).join(', ')}${bench.kind === 'postgres' ? `, PostgreSQL ${(postgresCpuMs(cpu0, cpu1) / seen.size).toFixed(0)} ms` : ''}`);
  for (const [label, ms] of split) results.add(`  service CPU per page: ${label}`, ms / 1000 / seen.size, 'CPU-s', { digits: 3 });
  const byType = [...chromiumCpuByType(cpu0, cpu1, process.pid)].filter(([, ms]) => ms > 0).sort((x, y) => y[1] - x[1]);
  console.log(`  service's Chromium CPU per page by process type: ${byType.map(([type, ms]) => `${type} ${(ms / seen.size).toFixed(1)} ms`).join(', ')}`);
  for (const [type, ms] of byType) results.add(`  service CPU per page: Chromium ${type}`, ms / 1000 / seen.size, 'CPU-s', { digits: 3 });
  const failed = await bench.db.prisma.task.count({ where: { id: { in: [...ids] }, statusCode: { not: 20000 } } });
  console.log(`  service: ${seen.size} of ${ids.size} tasks in tasks_ready after ${(wallMs / 1000).toFixed(1)} s, ${failed} not 20000; ${cpuText(serviceShare)}`);

  const live: number[] = [];
  for (const p of singles) {
    await sleep(GAP_MS);
    const r = await call(api('live'), account.basic, 'POST', [{ asin: p.asin, marketplace: p.marketplace, max_age_minutes: 0 }]);
    if (r.body.tasks?.[0]?.status_code !== 20000) throw new Error(`live read of ${p.file} failed: ${JSON.stringify(r.body).slice(0, 300)}`);
    live.push(r.ms);
  }
  figures.service = {
    pagesPerMin: seen.size / (wallMs / 60_000), cpuSPerPage: serviceCpuMs / 1000 / seen.size, p50: p50(live), p95: p95(live),
    cpu: serviceShare, note: `${seen.size} tasks in ${(wallMs / 1000).toFixed(1)} s`,
  };

  const { floor, puppeteer, service } = figures;
  const row = (name: string, f: ReaderFigures) =>
    `| ${name} | ${fmt(f.pagesPerMin, 0)} | ${fmt(f.cpuSPerPage, 3)} | ${fmt(f.p50, 0)} | ${fmt(f.p95, 0)} | ${fmt(f.pagesPerMin / floor.pagesPerMin, 2)}× | ${fmt(f.cpuSPerPage / floor.cpuSPerPage, 2)}× | ${Math.round(f.cpu.other)}% |`;
  console.log('\n  side by side (one run, same pages, same concurrency):\n');
  console.log('| reader | pages/min | CPU-s per page | one read p50 ms | p95 ms | pages/min ÷ floor | CPU ÷ floor | other load |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  console.log(row('service', service));
  console.log(row('puppeteer script', puppeteer));
  console.log(row('floor (HTTP GET + parse5)', floor));
  console.log(`\n  service ÷ puppeteer: ${fmt(service.pagesPerMin / puppeteer.pagesPerMin, 2)}× pages/min, ${fmt(service.cpuSPerPage / puppeteer.cpuSPerPage, 2)}× CPU per page\n`);

  for (const [name, f] of [['service', service], ['puppeteer', puppeteer], ['floor', floor]] as const) {
    results.add(`${name} pages/min`, f.pagesPerMin, 'pages/min', { digits: 0, cpu: f.cpu, note: f.note });
    results.add(`${name} CPU per page`, f.cpuSPerPage, 'CPU-s', { digits: 3 });
    results.add(`${name} one read p50`, f.p50, 'ms');
    results.add(`${name} one read p95`, f.p95, 'ms');
  }
  results.add('puppeteer / floor pages/min', puppeteer.pagesPerMin / floor.pagesPerMin, '×', { digits: 2 });
  results.add('puppeteer / floor CPU per page', puppeteer.cpuSPerPage / floor.cpuSPerPage, '×', { digits: 2 });
  results.add('service / puppeteer pages/min', service.pagesPerMin / puppeteer.pagesPerMin, '×', { digits: 2 });
  results.add('service / puppeteer CPU per page', service.cpuSPerPage / puppeteer.cpuSPerPage, '×', { digits: 2 });
  results.add('goal: service / floor pages/min', service.pagesPerMin / floor.pagesPerMin, '×', { digits: 2, target: { op: '>=', limit: 0.5 } });
  results.add('goal: service / floor CPU per page', service.cpuSPerPage / floor.cpuSPerPage, '×', { digits: 2, target: { op: '<=', limit: 2 } });
  results.add('goal: service p50 − floor p50', service.p50 - floor.p50, 'ms', { target: { op: '<=', limit: 100 } });
  results.add('goal: service p95 − floor p95', service.p95 - floor.p95, 'ms', { target: { op: '<=', limit: 200 } });
  if (postMs.length) results.add('goal: task_post p50 (100 tasks) while saturated', p50(postMs), 'ms', { target: { op: '<=', limit: 150 }, note: `${postMs.length} posts; a p50 of a few swings, npm run bench:saturated times 20` });
  replayProcess.child.kill();
});
