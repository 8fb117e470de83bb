/**
 * History benchmark: `npx tsx bench/history.ts [--db pglite|postgres|both]`.
 *
 * Stores BENCH_HISTORY_ROWS observations (default 1,000,000) with one
 * `INSERT ... SELECT generate_series` statement, spread over 1,000 ASINs (1,000 observations each,
 * one an hour, shaped like a real page's: 6 variants, 2 sub-ranks, 8 details), then times
 * POST /v1/retail/product/history for one ASIN, one request at a time (BENCH_HISTORY_REQUESTS,
 * default 300, after 20 warm-up requests; default limit, i.e. the newest 100 observations):
 * first as the rows were just inserted (no statistics yet: PGlite has no autovacuum), then after
 * ANALYZE.
 */
import { HISTORY_STATEMENT, OBSERVATION_INCLUDE, toProduct } from '../core/observations.js';
import { legacyColumns, storeGenerated } from './generated-observations.js';
import { briefCall, call } from './http.js';
import { sampleProduct } from './pages.js';
import { withCpuProfile } from './profile.js';
import { benchAccount, runPart } from './stack.js';
import { awaitQuiet, cpuShare, cpuSnapshot, cpuText, envInt, fmt, p50, p95, processCpuMs } from './machine.js';

const ROWS = envInt('BENCH_HISTORY_ROWS', 1_000_000);
const ASINS = 1000;
const REQUESTS = envInt('BENCH_HISTORY_REQUESTS', 300);

/** SQL literal of a JSON value. */
const json = (v: unknown): string => `'${JSON.stringify(v).replace(/'/g, "''")}'::jsonb`;

await runPart('history', `history: one ASIN among ${fmt(ROWS, 0)} observations`, {}, async (bench, results) => {
  const account = await benchAccount(bench.db);
  const p = sampleProduct('BH00000000');
  const t0 = performance.now();
  const inserted = await storeGenerated(bench.db, `SELECT ${legacyColumns({
    asin: `'BH' || lpad((i % ${ASINS})::text, 8, '0')`, marketplace: `'com'`,
    observed_at: `now() - make_interval(hours => i / ${ASINS}) - make_interval(secs => (i % ${ASINS}) / 100.0)`,
    status: `'ok'`, url: `'https://www.amazon.com/dp/BH' || lpad((i % ${ASINS})::text, 8, '0')`,
    title: `'${p.title!.replace(/'/g, "''")}'`, byline: json(p.byline), variant: `'${p.variant}'`, variants: json(p.variants),
    price_amount: `10 + (i % 5000) / 100.0`, price_currency: `'USD'`, bsr: json(p.bsr), bsr_rank: `1000 + i % 100000`, rating: '4.3',
    ratings_count: `1000 + i % 500`, image_url: `'${p.image_url}'`, details: json(p.details),
  })} FROM generate_series(0, ${ROWS - 1}) AS i`);
  const insertS = (performance.now() - t0) / 1000;
  console.log(`  inserted ${fmt(inserted, 0)} observations over ${ASINS} ASINs in ${insertS.toFixed(1)} s`);
  results.add(`bulk insert of ${fmt(ROWS, 0)} observations`, insertS, 's', { note: 'one INSERT … SELECT generate_series' });

  const asin = 'BH00000500';
  const url = `${bench.url}/v1/retail/product/history`;
  const body = [{ asin, marketplace: 'com' }];
  const first = await call(url, account.basic, 'POST', body);
  const rows = first.body.tasks?.[0]?.result as unknown[] | undefined;
  if (first.status !== 200 || rows?.length !== 100) throw new Error(`history answered ${first.status} with ${rows?.length} rows: ${JSON.stringify(first.body).slice(0, 300)}`);
  const bytes = JSON.stringify(first.body).length;

  const measure = async (label: string) => {
    for (let i = 0; i < 20; i++) await call(url, account.basic, 'POST', body);
    await awaitQuiet(`history ${label}`);
    const cpu0 = cpuSnapshot();
    const ms0 = processCpuMs();
    const times: number[] = [];
    await withCpuProfile(`history-${label.replace(/\W+/g, '_')}-${bench.kind}`, async () => {
      for (let i = 0; i < REQUESTS; i++) {
        const r = await briefCall(url, account.basic, 'POST', body);
        if (r.status !== 200 || r.taskCodes[0] !== 20000) throw new Error(`history answered ${r.status} with task codes ${r.taskCodes.join(', ')}`);
        times.push(r.ms);
      }
    });
    const cpu = cpuShare(cpu0, cpuSnapshot());
    const serviceCpu = (processCpuMs() - ms0) / REQUESTS;
    console.log(`  ${label}: ${REQUESTS} sequential requests, 100 rows (${Math.round(bytes / 1024)} KiB) each; service CPU ${serviceCpu.toFixed(2)} ms per request; ${cpuText(cpu)}`);
    return { times, cpu, serviceCpu };
  };

  const cold = await measure('as inserted');
  results.add('history p50 (1 ASIN, 100 rows; as inserted)', p50(cold.times), 'ms', { target: { op: '<=', limit: 20 }, cpu: cold.cpu });
  results.add('history p95 (as inserted)', p95(cold.times), 'ms');
  // The service's own statement with the request's parameters (no date bounds, offset 0, limit 100).
  const plan = async () =>
    (await bench.db.prisma.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(
      `EXPLAIN (ANALYZE, BUFFERS) ${HISTORY_STATEMENT.text}`, asin, 'com', null, null, 0, 100,
    )).map((r) => `    ${r['QUERY PLAN']}`).join('\n');
  console.log(`  plan of the history query as inserted:\n${await plan()}`);

  const ta = performance.now();
  await bench.db.prisma.$executeRawUnsafe('ANALYZE observations');
  console.log(`  ANALYZE observations took ${((performance.now() - ta) / 1000).toFixed(1)} s`);
  const analyzed = await measure('after ANALYZE');
  results.add('history p50 (after ANALYZE)', p50(analyzed.times), 'ms', { target: { op: '<=', limit: 20 }, cpu: analyzed.cpu });
  results.add('history p95 (after ANALYZE)', p95(analyzed.times), 'ms');
  results.add('history service CPU per request', analyzed.serviceCpu, 'ms', { digits: 2 });
  console.log(`  plan of the history query after ANALYZE:\n${await plan()}`);

  // The share of the answer that is not the database: turning 100 rows into Products and JSON.
  const dbRows = await bench.db.prisma.observation.findMany({ where: { asin, marketplace: 'com' }, orderBy: [{ observedAt: 'desc' }, { id: 'desc' }], take: 100, include: OBSERVATION_INCLUDE });
  const ts = performance.now();
  for (let i = 0; i < 50; i++) JSON.stringify(dbRows.map(toProduct));
  results.add('  of which toProduct + JSON of 100 rows', (performance.now() - ts) / 50, 'ms', { digits: 2 });
});
