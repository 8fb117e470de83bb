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
 *   BROWSER_MAX_PAGES = the concurrency;
 * - then, in the same process on the same stack, the service's search reads: BENCH_FLOOR_SEARCH_PAGES
 *   (120) search tasks of one page each over the saved search pages (cycled; each round under
 *   keywords of its own, bench/pages.ts `roundKeyword`, so the 60-minute search reuse never answers
 *   one), posted and collected the same way through the search API. Side by side with the product
 *   reads: CPU per page and per MB of page read (the saved files' sizes), and the goal search CPU
 *   per MB ÷ product CPU per MB ≤ 1.
 * The replay server serves both folders (bench/pages.ts `combinedReplayDir`). BENCH_FLOOR_ONLY=service
 * measures the service alone (no floor, no puppeteer script: no ratios to them); BENCH_FLOOR_PAGE_MB
 * (`<min>-<max>`) keeps only the saved pages of that size, to compare reads of pages of the same size.
 * For each: pages per minute, machine CPU-seconds per page (from /proc: the floor's process; the
 * script's process and its Chromium; the service's process tree: API, worker, PGlite, Temporal
 * dev server, Chromium, plus the PostgreSQL server's processes on PostgreSQL), and the latency of one
 * read, p50 / p95, over BENCH_FLOOR_READS (20) reads one at a time, BENCH_FLOOR_GAP_MS (500) apart
 * (the service: fresh live reads, `max_age_minutes: 0`, measured from the client process).
 * Then the issue's goals, each a ratio to the floor measured in the same run.
 */
import { MARKETPLACES } from '../core/marketplaces.js';
import { resolveChromePath } from '../worker/browser/chrome-path.js';
import fs from 'node:fs';
import { call } from './http.js';
import { runFloorReader } from './floor-reader-process.js';
import { measureServiceRun, type ServiceRun } from './floor-service.js';
import { awaitQuiet, cpuShareOfTree, cpuSnapshot, cpuText, envInt, fmt, p50, p95, type CpuShare, type DbKind, type Results } from './machine.js';
import { combinedReplayDir, replayDir, replayProducts, replaySearches, roundKeyword, type ReplayProduct } from './pages.js';
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
const SEARCH_PAGES = envInt('BENCH_FLOOR_SEARCH_PAGES', 120);
if (SEARCH_PAGES > 1000) throw new Error('BENCH_FLOOR_SEARCH_PAGES: at most 1,000 (tasks_ready answers at most 1,000 tasks)');
/** `service`: skip the floor and the puppeteer script (while iterating on the service). */
const SERVICE_ONLY = process.env.BENCH_FLOOR_ONLY === 'service';
const MB = 1_000_000;
/** `<min>-<max>` MB (BENCH_FLOOR_PAGE_MB, e.g. `0.7-1.5`): only saved pages of that size, product and search alike. */
const SIZE_BAND = (() => {
  const raw = process.env.BENCH_FLOOR_PAGE_MB;
  if (!raw) return undefined;
  const [min, max] = raw.split('-').map(Number);
  if (!Number.isFinite(min) || !Number.isFinite(max) || min! >= max!) throw new Error('BENCH_FLOOR_PAGE_MB: <min>-<max> in MB, e.g. 0.7-1.5');
  return { min: min! * MB, max: max! * MB };
})();
const inBand = (page: { bytes: number }): boolean => !SIZE_BAND || (page.bytes >= SIZE_BAND.min && page.bytes <= SIZE_BAND.max);

/** One reader's figures. */
interface ReaderFigures {
  pagesPerMin: number;
  cpuSPerPage: number;
  p50: number;
  p95: number;
  cpu: CpuShare;
  note: string;
}

const searches = (await replaySearches()).filter(inBand);
if (searches.length === 0) throw new Error(`no saved search pages (../shared/fixtures/search)${SIZE_BAND ? ` of ${process.env.BENCH_FLOOR_PAGE_MB} MB` : ''}`);
// Round 0 (the saved keywords) warms the search path up; rounds 1.. are the measured reads.
const searchRounds = 1 + Math.ceil(SEARCH_PAGES / searches.length);
const combinedDir = await combinedReplayDir(searchRounds);
process.on('exit', () => fs.rmSync(combinedDir, { recursive: true, force: true }));
const replayProcess = await startReplayProcess(combinedDir);
const origin = replayProcess.url;

await runPart('floor', `floor: the service, a puppeteer script and HTTP GET + parse5 over the same pages, ${CONCURRENCY} at once`, {
  REUSE_WINDOW: '0s', RETAIL_SOURCE_ORIGIN: origin, BROWSER_MAX_PAGES: String(CONCURRENCY),
}, async (bench, results) => {
  const products = (await replayProducts(replayDir())).filter(inBand);
  if (products.length === 0) throw new Error(`no product pages in ${replayDir()}${SIZE_BAND ? ` of ${process.env.BENCH_FLOOR_PAGE_MB} MB` : ''}`);
  const domain = (p: ReplayProduct) => MARKETPLACES.find((m) => m.code === p.marketplace)!.domain;
  const pageUrl = (p: ReplayProduct) => `${origin}/${domain(p)}/dp/${p.asin}`;
  const work = Array.from({ length: PAGES }, (_, i) => products[i % products.length]!);
  // The single reads take other pages first, in another order: no reader meets a page it just read.
  const singles = Array.from({ length: READS }, (_, i) => products[products.length - 1 - ((i * 7) % products.length)]!);
  console.log(`  ${PAGES} pages over ${products.length} saved product pages, ${CONCURRENCY} at once; ${READS} single reads ${GAP_MS} ms apart; replay server ${origin} (own process, over ${combinedDir}); the service reads with ${process.env.BROWSER_WS_ENDPOINTS ? 'BROWSER_WS_ENDPOINTS' : resolveChromePath(process.env.CHROME_PATH)}`);
  const figures: Partial<Record<'floor' | 'puppeteer' | 'service', ReaderFigures>> = {};

  for (const mode of SERVICE_ONLY ? [] : ['http', 'puppeteer'] as const) {
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
    console.log(`  ${name}: ${figures[name]!.note}; ${cpuText(share)}`);
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
  const productRun = await measureServiceRun(bench, account.basic, {
    api: 'product', maxMs: MAX_MS, replayPid, profile: `floor-${bench.kind}`,
    elements: work.map((p, i) => ({ asin: p.asin, marketplace: p.marketplace, tag: `floor-${i}` })),
  });
  report(productRun, 'service', results, bench.kind);
  if (productRun.postMs.length) results.add('goal: task_post p50 (100 tasks) while saturated', p50(productRun.postMs), 'ms', { target: { op: '<=', limit: 150 }, note: `${productRun.postMs.length} posts; a p50 of a few swings, npm run bench:saturated times 20` });
  const live: number[] = [];
  for (const p of singles) {
    await sleep(GAP_MS);
    const r = await call(api('live'), account.basic, 'POST', [{ asin: p.asin, marketplace: p.marketplace, max_age_minutes: 0 }]);
    if (r.body.tasks?.[0]?.status_code !== 20000) throw new Error(`live read of ${p.file} failed: ${JSON.stringify(r.body).slice(0, 300)}`);
    live.push(r.ms);
  }
  const service: ReaderFigures = {
    pagesPerMin: productRun.collected / (productRun.wallMs / 60_000), cpuSPerPage: productRun.cpuMs / 1000 / productRun.collected, p50: p50(live), p95: p95(live),
    cpu: productRun.share, note: `${productRun.collected} tasks in ${(productRun.wallMs / 1000).toFixed(1)} s`,
  };
  figures.service = service;

  // The search reads: warm the search parse path up on round 0's keywords, then every task a fresh read.
  for (const p of searches.slice(0, CONCURRENCY * 2)) {
    const r = await call(`${bench.url}/v1/retail/search/live`, account.basic, 'POST', [{ keyword: roundKeyword(p.keyword, 0), marketplace: p.marketplace }]);
    if (r.body.tasks?.[0]?.status_code !== 20000) throw new Error(`warm-up search live of ${p.file} failed: ${JSON.stringify(r.body).slice(0, 300)}`);
  }
  const searchWork = Array.from({ length: SEARCH_PAGES }, (_, i) => ({ ...searches[i % searches.length]!, round: 1 + Math.floor(i / searches.length) }));
  console.log(`  search: ${SEARCH_PAGES} one-page search tasks over ${searches.length} saved search pages, ${searchRounds - 1} rounds of distinct keywords`);
  await awaitQuiet('search');
  await fetch(`${origin}/_replay/hits`, { method: 'DELETE' });
  const searchRun = await measureServiceRun(bench, account.basic, {
    api: 'search', maxMs: MAX_MS, replayPid, profile: `floor-search-${bench.kind}`,
    elements: searchWork.map((p, i) => ({ keyword: roundKeyword(p.keyword, p.round), marketplace: p.marketplace, pages: 1, tag: `floor-search-${i}` })),
  });
  report(searchRun, 'search', results, bench.kind);
  // Every search task must have read its page: a reused read would cost next to nothing.
  const hits = (await (await fetch(`${origin}/_replay/hits`)).json()) as Record<string, number>;
  const searchHits = Object.entries(hits).filter(([key]) => key.includes('/s?')).reduce((sum, [, n]) => sum + n, 0);
  console.log(`  search: the replay server answered ${searchHits} search page requests for ${searchRun.collected} tasks`);
  if (searchHits < searchRun.collected) throw new Error(`search: ${searchRun.collected - searchHits} tasks answered without reading their page`);
  sideBySide(results, [
    { name: 'product reads', run: productRun, meanBytes: work.reduce((sum, p) => sum + p.bytes, 0) / work.length },
    { name: 'search reads', run: searchRun, meanBytes: searchWork.reduce((sum, p) => sum + p.bytes, 0) / searchWork.length },
  ]);
  const { floor, puppeteer } = figures;
  if (!floor || !puppeteer) return;
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
});

/** Prints a service run's CPU split (by process, by Chromium process type) and adds it to `results` under `name`. */
function report(run: ServiceRun, name: 'service' | 'search', results: Results, kind: DbKind): void {
  const per = (ms: number) => ms / run.collected;
  console.log(`  ${name} CPU per page by process: ${run.byProcess.map(([label, ms]) => `${label} ${per(ms).toFixed(0)} ms`).join(', ')}${kind === 'postgres' ? `, PostgreSQL ${per(run.postgresMs).toFixed(0)} ms` : ''}`);
  for (const [label, ms] of run.byProcess) results.add(`  ${name} CPU per page: ${label}`, per(ms) / 1000, 'CPU-s', { digits: 3 });
  console.log(`  ${name}'s Chromium CPU per page by process type: ${run.byChromiumType.map(([type, ms]) => `${type} ${per(ms).toFixed(1)} ms`).join(', ')}`);
  for (const [type, ms] of run.byChromiumType) results.add(`  ${name} CPU per page: Chromium ${type}`, per(ms) / 1000, 'CPU-s', { digits: 3 });
  console.log(`  ${name}: ${run.collected} of ${run.posted} tasks in tasks_ready after ${(run.wallMs / 1000).toFixed(1)} s, ${run.failed} not 20000; ${cpuText(run.share)}`);
}

/**
 * Product reads beside search reads of the same service run: pages/min, CPU per page and per MB
 * of page read (`meanBytes`: the mean size of the saved files read), and the goal that a search
 * read costs no more CPU per MB than a product read.
 */
function sideBySide(results: Results, runs: [ReadRun, ReadRun]): void {
  const perMb = (r: ReadRun) => r.run.cpuMs / r.run.collected / (r.meanBytes / MB);
  console.log('\n  product reads beside search reads (one service, same concurrency):\n');
  console.log('| service reads | pages | mean page MB | pages/min | CPU-s per page | CPU-ms per MB of page | not 20000 | other load |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of runs) {
    console.log(`| ${r.name} | ${r.run.collected} | ${fmt(r.meanBytes / MB, 2)} | ${fmt(r.run.collected / (r.run.wallMs / 60_000), 0)} | ${fmt(r.run.cpuMs / 1000 / r.run.collected, 3)} | ${fmt(perMb(r), 0)} | ${r.run.failed} | ${Math.round(r.run.share.other)}% |`);
  }
  const [product, search] = runs;
  console.log('');
  results.add('search pages/min', search.run.collected / (search.run.wallMs / 60_000), 'pages/min', { digits: 0, cpu: search.run.share, note: `${search.run.collected} tasks in ${(search.run.wallMs / 1000).toFixed(1)} s, ${search.run.failed} not 20000` });
  results.add('search CPU per page', search.run.cpuMs / 1000 / search.run.collected, 'CPU-s', { digits: 3 });
  for (const r of runs) {
    const name = r === product ? 'product' : 'search';
    results.add(`${name} mean page size`, r.meanBytes / MB, 'MB', { digits: 2 });
    results.add(`${name} CPU per MB of page`, perMb(r), 'CPU-ms');
  }
  results.add('search / product CPU per page', (search.run.cpuMs / search.run.collected) / (product.run.cpuMs / product.run.collected), '×', { digits: 2, note: `pages ${fmt(search.meanBytes / product.meanBytes, 2)}× the size` });
  results.add('goal: search / product CPU per MB', perMb(search) / perMb(product), '×', { digits: 2, target: { op: '<=', limit: 1 } });
}

/** One service run and the mean size of the pages it read, bytes. */
interface ReadRun {
  name: string;
  run: ServiceRun;
  meanBytes: number;
}
