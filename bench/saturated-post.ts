/**
 * task_post while reads saturate the service: `npm run bench:saturated [-- --db pglite|postgres|both]`.
 *
 * The service runs in this process (as under `npm start`), the replay server in a process of its
 * own. BENCH_SATURATED_QUEUE tasks (1,000) are posted first so that every page slot is busy for
 * the whole run (REUSE_WINDOW=0s: each task reads its page); after 15 s, BENCH_SATURATED_POSTS (20)
 * 100-task bodies are posted one every BENCH_SATURATED_EVERY_MS (4,000) ms, each timed from this
 * client. Prints their p50 and p90 and the pages read meanwhile (pages/min), the goal being
 * a p50 ≤ 150 ms. More posts than the floor part's (which times only the bodies that follow its
 * first), at a rate a user would post at, not a flood: a body every second outruns the reads
 * twentyfold and then measures the backlog of workflow starts, not the API.
 */
import { MARKETPLACES } from '../core/marketplaces.js';
import { call } from './http.js';
import { envInt, fmt, p50, quantile } from './machine.js';
import { replayDir, replayProducts } from './pages.js';
import { benchAccount, runPart, sleep, startReplayProcess } from './stack.js';

const QUEUE = envInt('BENCH_SATURATED_QUEUE', 1000);
const POSTS = envInt('BENCH_SATURATED_POSTS', 20);
const EVERY_MS = envInt('BENCH_SATURATED_EVERY_MS', 4000);

const replay = await startReplayProcess();
await runPart('saturated', `saturated: ${POSTS} task_post bodies of 100 while ${QUEUE} queued tasks saturate the reads`, {
  REUSE_WINDOW: '0s', RETAIL_SOURCE_ORIGIN: replay.url, BROWSER_MAX_PAGES: '4',
}, async (bench, results) => {
  const account = await benchAccount(bench.db);
  const products = (await replayProducts(replayDir())).filter((p) => MARKETPLACES.some((m) => m.code === p.marketplace));
  if (products.length === 0) throw new Error(`no product pages in ${replayDir()}`);
  const api = (path: string) => `${bench.url}/v1/retail/product/${path}`;
  // Warm the browser, the workflow bundle and the parser.
  for (const p of products.slice(0, 8)) await call(api('live'), account.basic, 'POST', [{ asin: p.asin, marketplace: p.marketplace, max_age_minutes: 0 }]);
  let next = 0;
  const body = () => Array.from({ length: 100 }, () => {
    const p = products[next++ % products.length]!;
    return { asin: p.asin, marketplace: p.marketplace };
  });
  const post = async () => {
    const r = await call(api('task_post'), account.basic, 'POST', body());
    if (r.status !== 200 || r.body.tasks_error !== 0) throw new Error(`task_post failed: ${JSON.stringify(r.body).slice(0, 300)}`);
    return r.ms;
  };
  for (let queued = 0; queued < QUEUE; queued += 100) await post();
  await sleep(15_000);
  const completed = () => bench.db.prisma.task.count({ where: { completedAt: { not: null } } });
  const done0 = await completed();
  const t0 = performance.now();
  const ms: number[] = [];
  for (let i = 0; i < POSTS; i++) {
    const took = await post();
    ms.push(took);
    await sleep(Math.max(0, EVERY_MS - took));
  }
  const minutes = (performance.now() - t0) / 60_000;
  const read = (await completed()) - done0;
  const p90 = quantile(ms, 0.9);
  console.log(`  ${POSTS} posts: p50 ${fmt(p50(ms), 0)} ms, p90 ${fmt(p90, 0)} ms; ${read} pages read meanwhile (${fmt(read / minutes, 0)}/min)`);
  results.add('task_post p50 (100 tasks) while saturated', p50(ms), 'ms', { target: { op: '<=', limit: 150 }, note: `${POSTS} posts` });
  results.add('task_post p90 (100 tasks) while saturated', p90, 'ms');
  results.add('pages/min read meanwhile', read / minutes, 'pages/min', { digits: 0 });
});
