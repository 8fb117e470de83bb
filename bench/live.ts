/**
 * Live benchmark: `npx tsx bench/live.ts [--db pglite|postgres|both]`.
 *
 * POST /v1/retail/product/live, one request at a time, on the whole service:
 * - cache hit: a stored observation younger than `max_age_minutes` (BENCH_LIVE_HITS requests,
 *   default 200, after 20 warm-up requests): p50 / p95;
 * - fresh read (`max_age_minutes: 0`) through the Temporal workflow, Chromium and the replay
 *   server, cycling over the replay folder's product pages (BENCH_LIVE_READS, default 40, after 3
 *   warm-up reads), each sent BENCH_LIVE_GAP_MS (default 1,000) after the previous answer, as
 *   independent live requests arrive: p50 / p95 of the total, of the page load and of the
 *   service's own overhead (total − page load); then the same reads back to back (p50 of each). The page load is the browser grid's own `loadMs` of each read (context
 *   setup + navigation + the replay server serving the page, queue wait excluded), which the worker
 *   logs with every stored observation; the bench captures the service's log lines.
 *   The overhead is then split further: the parser's time on the same pages (parseProductPage in
 *   this process, after the run) and the rest (workflow start and result, the three activities,
 *   database writes, HTTP), and along each read's workflow history (timing spans from the event
 *   times the Temporal server recorded: before the workflow started, up to the read activity, the
 *   activity minus loadMs, after it, after the workflow ended).
 */
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { resolveMarketplace } from '../core/marketplaces.js';
import { storeObservation } from '../core/observations.js';
import { decodePage, parseProductPage } from '../worker/parser/index.js';
import fs from 'node:fs';
import path from 'node:path';
import { briefCall, call } from './http.js';
import { replayDir, replayProducts, sampleProduct } from './pages.js';
import { withCpuProfile } from './profile.js';
import { benchAccount, runPart } from './stack.js';
import { awaitQuiet, cpuShare, cpuSnapshot, cpuText, envInt, p50, p95, processCpuMs } from './machine.js';

/** Durations (ms) of one live read, from its workflow history and the client's clock. */
interface Spans {
  beforeStart: number;
  startToRead: number;
  read: number;
  readToEnd: number;
  afterEnd: number;
  loadMs: number;
  /** The activity's own timings as the worker logged them (bench/logs.ts LoggedRead). */
  waitMs: number;
  parseMs: number;
  storeMs: number;
}

/** A Temporal client per dev server (each run of the part starts its own). */
const temporalClients = new Map<string, Client>();

/** Splits one live read along its workflow's history (event times of the Temporal server; same machine clock). */
async function workflowSpans(address: string, namespace: string, workflowId: string, sentAt: number, answeredAt: number): Promise<Omit<Spans, 'loadMs' | 'waitMs' | 'parseMs' | 'storeMs'>> {
  let temporal = temporalClients.get(address);
  if (!temporal) {
    temporal = new Client({ connection: await Connection.connect({ address }), namespace });
    temporalClients.set(address, temporal);
  }
  // The answer may come before the workflow's close (the worker tells the API when the read has
  // completed the task): wait for the close, so that the history holds every event.
  const handle = temporal.workflow.getHandle(workflowId);
  await handle.result();
  const history = await handle.fetchHistory();
  const E = proto.temporal.api.enums.v1.EventType;
  const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined): number => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
  const events = history.events ?? [];
  const started = events.find((e) => e.eventType === E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
  const ended = events.find((e) => e.eventType === E.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
  const scheduled = events.find((e) => e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED && e.activityTaskScheduledEventAttributes?.activityType?.name === 'readProductPage');
  const readStart = events.find((e) => e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_STARTED && Number(e.activityTaskStartedEventAttributes?.scheduledEventId) === Number(scheduled?.eventId));
  const readEnd = events.find((e) => e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED && Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === Number(scheduled?.eventId));
  if (!started || !ended || !readStart || !readEnd) throw new Error(`workflow ${workflowId}: history lacks the expected events`);
  return {
    beforeStart: ms(started.eventTime) - sentAt,
    startToRead: ms(readStart.eventTime) - ms(started.eventTime),
    read: ms(readEnd.eventTime) - ms(readStart.eventTime),
    readToEnd: ms(ended.eventTime) - ms(readEnd.eventTime),
    afterEnd: answeredAt - ms(ended.eventTime),
  };
}

const HITS = envInt('BENCH_LIVE_HITS', 200);
const READS = envInt('BENCH_LIVE_READS', 40);
const GAP_MS = envInt('BENCH_LIVE_GAP_MS', 1000);

await runPart('live', 'live: cache hit and fresh read', {}, async (bench, results) => {
  const account = await benchAccount(bench.db);
  const url = `${bench.url}/v1/retail/product/live`;

  // Cache hit.
  await storeObservation(bench.db, sampleProduct('BL00000001'));
  const hitBody = [{ asin: 'BL00000001', marketplace: 'com', max_age_minutes: 60 }];
  for (let i = 0; i < 20; i++) await call(url, account.basic, 'POST', hitBody);
  const hits: number[] = [];
  await awaitQuiet('live cache hit');
  const cpu0 = cpuSnapshot();
  const ms0 = processCpuMs();
  await withCpuProfile(`live-hit-${bench.kind}`, async () => {
    for (let i = 0; i < HITS; i++) {
      const r = await briefCall(url, account.basic, 'POST', hitBody);
      if (r.status !== 200 || r.taskCodes[0] !== 20000) throw new Error(`live cache hit failed: ${r.status} with task codes ${r.taskCodes.join(', ')}`);
      hits.push(r.ms);
    }
  });
  let cpu = cpuShare(cpu0, cpuSnapshot());
  const hitCpu = (processCpuMs() - ms0) / HITS;
  console.log(`  cache hit: ${HITS} sequential requests; ${cpuText(cpu)}`);
  results.add('live cache hit p50', p50(hits), 'ms', { target: { op: '<=', limit: 15 }, cpu });
  results.add('live cache hit p95', p95(hits), 'ms');
  results.add('live cache hit service CPU per request', hitCpu, 'ms', { digits: 2 });

  // Fresh reads.
  const products = await replayProducts(replayDir());
  if (products.length === 0) throw new Error(`no product pages in ${replayDir()}`);
  const read = async (i: number) => {
    const p = products[i % products.length]!;
    const mark = bench.logs.lines.length;
    const sentAt = Date.now();
    const r = await call(url, account.basic, 'POST', [{ asin: p.asin, marketplace: p.marketplace, max_age_minutes: 0 }]);
    const task = r.body.tasks?.[0];
    if (r.status !== 200 || task?.status_code !== 20000) throw new Error(`live read of ${p.file} failed: ${JSON.stringify(r.body).slice(0, 300)}`);
    // The worker logs the read before the API answers; allow a moment for the line anyway.
    let logged = bench.logs.reads(mark).filter((x) => x.key === `${p.marketplace}:${p.asin}`);
    for (let w = 0; w < 20 && logged.length === 0; w++) {
      await new Promise((res) => setTimeout(res, 10));
      logged = bench.logs.reads(mark).filter((x) => x.key === `${p.marketplace}:${p.asin}`);
    }
    if (logged.length !== 1) throw new Error(`expected one logged read of ${p.file}, found ${logged.length}`);
    const { loadMs, waitMs, parseMs, storeMs } = logged[0]!;
    return { total: r.ms, loadMs, waitMs, parseMs, storeMs, product: p, taskId: task.id as string, sentAt, answeredAt: Date.now() };
  };
  for (let i = 0; i < 3; i++) await read(i);
  const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));
  /** READS sequential fresh reads, each sent `gapMs` after the previous answer. */
  const series = async (label: string, gapMs: number) => {
    const out = { totals: [] as number[], loads: [] as number[], overheads: [] as number[], pages: [] as typeof products, spans: [] as Spans[] };
    await awaitQuiet(`live fresh read (${label})`);
    const before = cpuSnapshot();
    await withCpuProfile(`live-fresh-${label}-${bench.kind}`, async () => {
      for (let i = 0; i < READS; i++) {
        await sleep(gapMs);
        const r = await read(i);
        out.totals.push(r.total);
        out.loads.push(r.loadMs);
        out.overheads.push(r.total - r.loadMs);
        out.pages.push(r.product);
        out.spans.push({ ...(await workflowSpans(bench.stack.temporalAddress, bench.stack.config.TEMPORAL_NAMESPACE, r.taskId, r.sentAt, r.answeredAt)), loadMs: r.loadMs, waitMs: r.waitMs, parseMs: r.parseMs, storeMs: r.storeMs });
      }
    });
    return { ...out, cpu: cpuShare(before, cpuSnapshot()) };
  };
  // Spaced as independent live requests arrive (the browser's own clean-up and spare page are done
  // by the next one), then back to back (the browser's background work shares the CPU with the next
  // read's parse and Temporal hops).
  const spaced = await series('spaced', GAP_MS);
  const { totals, loads, overheads, pages: readPages, spans } = spaced;
  cpu = spaced.cpu;
  const pageSizes = `${products.length} pages (median ${Math.round(p50(products.map((p) => p.bytes)) / 1024)} KiB)`;
  console.log(`  fresh reads: ${READS} sequential requests ${GAP_MS} ms apart over ${pageSizes}; ${cpuText(cpu)}`);
  const packed = await series('back-to-back', 0);
  console.log(`  fresh reads back to back: ${READS} sequential requests over ${pageSizes}; ${cpuText(packed.cpu)}`);
  results.add('live fresh read total p50', p50(totals), 'ms', { cpu, note: `one read every ${GAP_MS} ms after the previous answer` });
  results.add('live fresh read total p95', p95(totals), 'ms');
  results.add('live fresh read page load (loadMs) p50', p50(loads), 'ms');
  results.add('live fresh read page load (loadMs) p95', p95(loads), 'ms');
  results.add('live fresh read overhead p50', p50(overheads), 'ms', { target: { op: '<=', limit: 150 }, cpu });
  results.add('live fresh read overhead p95', p95(overheads), 'ms');
  results.add('live fresh read back-to-back total p50', p50(packed.totals), 'ms', { cpu: packed.cpu, note: 'each read sent as the previous one is answered' });
  results.add('live fresh read back-to-back page load p50', p50(packed.loads), 'ms');
  results.add('live fresh read back-to-back overhead p50', p50(packed.overheads), 'ms');
  results.add('live fresh read back-to-back overhead p95', p95(packed.overheads), 'ms');

  // Where the overhead goes: the parser's share, timed on the same pages in this process.
  const parseMs: number[] = [];
  for (const p of readPages) {
    const bytes = fs.readFileSync(path.join(replayDir(), p.file));
    const marketplace = resolveMarketplace(p.marketplace)!;
    const t = performance.now();
    parseProductPage(decodePage(bytes, 'text/html'), marketplace);
    parseMs.push(performance.now() - t);
  }
  results.add('  of which parsing (same pages, decode+parse) p50', p50(parseMs), 'ms', { note: 'timed after the run in the bench process' });
  results.add('  of which the rest (Temporal, DB, HTTP) p50', p50(overheads) - p50(parseMs), 'ms', { note: 'overhead p50 − parse p50' });

  // The same reads split along the workflow's own history (event times of the Temporal server).
  const span = (k: keyof Spans) => p50(spans.map((x) => x[k]));
  console.log('  timing spans of the fresh reads from their workflow histories (p50 of each, ms):');
  console.log(`    request sent → workflow started (API: auth, charge, task row, start call)  ${span('beforeStart').toFixed(0)}`);
  console.log(`    workflow started → readProductPage started (a workflow task, the dispatch)    ${span('startToRead').toFixed(0)}`);
  console.log(`    readProductPage (page load ${span('loadMs').toFixed(0)} + decode, parse, store)  ${span('read').toFixed(0)}`);
  console.log(`    readProductPage done → workflow completed (the last workflow task)        ${span('readToEnd').toFixed(0)}`);
  console.log(`    workflow completed → answer received (negative: answered on the read's news) ${span('afterEnd').toFixed(0)}`);
  results.add('  span: request → workflow started p50', span('beforeStart'), 'ms');
  results.add('  span: workflow start → read activity start p50', span('startToRead'), 'ms');
  results.add('  span: read activity minus loadMs p50', p50(spans.map((x) => x.read - x.loadMs)), 'ms', { note: 'decode + parse + store' });
  results.add('    of which page-slot wait (worker log) p50', span('waitMs'), 'ms');
  results.add('    of which decode + parse (worker log) p50', span('parseMs'), 'ms');
  results.add('    of which store, record, complete task (worker log) p50', span('storeMs'), 'ms');
  results.add('    the rest (activity dispatch and completion) p50', p50(spans.map((x) => x.read - x.loadMs - x.waitMs - x.parseMs - x.storeMs)), 'ms');
  results.add('  span: read activity end → workflow end p50', span('readToEnd'), 'ms');
  results.add('  span: workflow end → answer p50', span('afterEnd'), 'ms', { note: 'negative: the answer came before the workflow closed' });
  await temporalClients.get(bench.stack.temporalAddress)?.connection.close();
  temporalClients.delete(bench.stack.temporalAddress);
});
