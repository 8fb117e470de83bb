/**
 * Statement trace: `npx tsx bench/statements.ts [pglite|postgres]` (default postgres).
 * Every SQL statement the service sends for one request of each kind (task_get first and again,
 * tasks_ready, task_post of 1 task from the reuse window, live cache hit, history), counted at the
 * `pg` client, one request at a time. Backs the "Per-request database work" table of BENCHMARKS.md.
 */
import pg from 'pg';

const log: string[] = [];
let tracing = false;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: unknown, ...args: unknown[]) {
  if (tracing) {
    const q = args[0] as string | { text?: string };
    log.push(typeof q === 'string' ? q : q?.text ?? JSON.stringify(q).slice(0, 200));
  }
  return query.apply(this, args);
};

const { startBenchStack, benchAccount } = await import('./stack.js');
const { call } = await import('./http.js');
const { sampleProduct } = await import('./pages.js');
const { storeObservation } = await import('../core/observations.js');
const kind = process.argv[2] === 'pglite' ? 'pglite' : 'postgres';
const bench = await startBenchStack(kind);
try {
  const account = await benchAccount(bench.db);
  const base = `${bench.url}/v1/retail/product`;
  await storeObservation(bench.db, sampleProduct('BS00000001'));
  const posted = await call(`${base}/task_post`, account.basic, 'POST', [{ asin: 'BS00000001', marketplace: 'com' }]);
  const id = posted.body.tasks[0].id as string;
  const requests: [string, () => Promise<unknown>][] = [
    ['task_get (first call)', () => call(`${base}/task_get/${id}`, account.basic, 'GET')],
    ['task_get (again)', () => call(`${base}/task_get/${id}`, account.basic, 'GET')],
    ['tasks_ready', () => call(`${base}/tasks_ready`, account.basic, 'GET')],
    ['task_post, 1 task from the reuse window', () => call(`${base}/task_post`, account.basic, 'POST', [{ asin: 'BS00000001', marketplace: 'com' }])],
    ['live, cache hit', () => call(`${base}/live`, account.basic, 'POST', [{ asin: 'BS00000001', marketplace: 'com', max_age_minutes: 60 }])],
    ['history, one element', () => call(`${base}/history`, account.basic, 'POST', [{ asin: 'BS00000001', marketplace: 'com' }])],
  ];
  console.log(`statements per request on ${bench.database}:`);
  for (const [name, send] of requests) {
    await new Promise((r) => setTimeout(r, 300));
    log.length = 0;
    tracing = true;
    await send();
    await new Promise((r) => setTimeout(r, 50));
    tracing = false;
    console.log(`\n## ${name}: ${log.length} statements`);
    for (const q of log) console.log(`  ${q.replace(/\s+/g, ' ').trim().slice(0, 160)}`);
  }
} finally {
  await bench.stop();
}
process.exit(0);
