/**
 * Bulk upload benchmark: `npm run bench -- bulk [--db pglite|postgres|both]`.
 *
 * The API process alone (API server, the database: PGlite in this process or a scratch database on
 * the real PostgreSQL, and a Temporal dev server with no worker, so started workflows wait in
 * their queue), one account without rate limits. A child process (curl) streams a 100,000-row CSV
 * file (BENCH_BULK_ROWS) to task_post while this process samples its own RSS every 20 ms; the
 * figure is the peak above the idle RSS measured just before (goal: under 100 MB). Two uploads:
 * - every row completed at once from the reuse window (a fresh observation of each ASIN stored
 *   first): reading, validating, charging and storing the rows;
 * - every row a new task whose `productTask` workflow is started (BENCH_BULK_WORKFLOW_ROWS,
 *   default 10,000: the Temporal dev server starts a few hundred workflows a second on this machine).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { pino } from 'pino';
import { startApiServer } from '../api/server.js';
import { loadConfig } from '../core/config.js';
import { openDatabase } from '../core/db/database.js';
import { startTemporalDevServer } from '../core/temporal/dev-server.js';
import { createScratchDatabase } from '../scripts/scratch-database.js';
import { benchAccount } from './stack.js';
import { legacyColumns, storeGenerated } from './generated-observations.js';
import { dbKindsFromArgs, envInt, fmt, printHeader, Results, type DbKind } from './machine.js';

const ROWS = envInt('BENCH_BULK_ROWS', 100_000);
const WORKFLOW_ROWS = envInt('BENCH_BULK_WORKFLOW_ROWS', 10_000);
const MB = 1024 * 1024;

/** A GC function (exposed at run time), so idle RSS is measured after a collection. */
function exposeGc(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}
const gc = exposeGc();

/** Writes a CSV of `rows` rows (ASINs `<prefix><8 digits>`, com, a tag) and returns its path. */
function csvFile(dir: string, prefix: string, rows: number): string {
  const file = path.join(dir, `${prefix}.csv`);
  const lines = ['asin,marketplace,tag'];
  for (let i = 0; i < rows; i++) lines.push(`${prefix}${String(i).padStart(8, '0')},com,row-${i}`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** Uploads `file` with curl (another process) while sampling this process's RSS; the answer and the peak. */
async function upload(url: string, auth: { login: string; key: string }, file: string): Promise<{ ms: number; peakRss: number; peakHeap: number; body: any }> {
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  const timer = setInterval(sample, 20);
  const t0 = performance.now();
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn('curl', ['-sS', '--fail-with-body', '-u', `${auth.login}:${auth.key}`, '-H', 'Content-Type: text/csv', '--data-binary', `@${file}`, `${url}/v1/retail/product/task_post`]);
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { text += d; });
    child.stderr.pipe(process.stderr);
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`curl exited ${code}: ${text.slice(0, 300)}`))));
  });
  const ms = performance.now() - t0;
  clearInterval(timer);
  sample();
  return { ms, peakRss, peakHeap, body: JSON.parse(out) };
}

async function idleRss(): Promise<number> {
  gc();
  await new Promise((r) => setTimeout(r, 1000));
  gc();
  return process.memoryUsage().rss;
}

async function run(kind: DbKind): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-bench-bulk-'));
  const scratch = kind === 'postgres' ? await createScratchDatabase() : undefined;
  const logger = pino({ level: 'warn' });
  const config = loadConfig({ PATH: process.env.PATH, DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'warn', ...(scratch && { DATABASE_URL: scratch.url }), ...(process.env.TEMPORAL_CLI_PATH && { TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH }) });
  const db = await openDatabase(config, { migrate: true });
  const temporal = await startTemporalDevServer({ uiPort: false, namespace: config.TEMPORAL_NAMESPACE, cliPath: config.TEMPORAL_CLI_PATH, logFile: path.join(dir, 'temporal.log') });
  const api = await startApiServer({ config, db, temporalAddress: temporal.address, logger });
  try {
    const version = (await db.prisma.$queryRawUnsafe<{ version: string }[]>('SELECT version() AS version'))[0]?.version ?? '';
    printHeader(`bulk: a ${fmt(ROWS, 0)}-row CSV upload to task_post (the API process alone)`, kind === 'pglite' ? `PGlite (${/PostgreSQL [\d.]+/.exec(version)?.[0]}, in this process)` : `${/PostgreSQL [\d.]+/.exec(version)?.[0]} (scratch database)`);
    const results = new Results('bulk', kind);
    const account = await benchAccount(db);
    const auth = { login: account.login, key: account.key };

    // Upload 1: every ASIN has a fresh observation, so every row completes from the reuse window.
    await storeGenerated(db, `SELECT ${legacyColumns({
      asin: `'BR' || lpad(i::text, 8, '0')`, marketplace: `'com'`, observed_at: 'now()', status: `'ok'`,
      url: `'https://www.amazon.com/dp/BR' || lpad(i::text, 8, '0')`, price_amount: '9.99', price_currency: `'USD'`, bsr_rank: '1000 + i',
    })} FROM generate_series(0, ${ROWS - 1}) AS i`);
    const reused = csvFile(dir, 'BR', ROWS);
    const bytes = fs.statSync(reused).size;
    const idle1 = await idleRss();
    const first = await upload(api.url, auth, reused);
    const s1 = first.body.tasks[0].result[0];
    if (s1.accepted !== ROWS) throw new Error(`accepted ${s1.accepted} of ${ROWS}: ${JSON.stringify(s1).slice(0, 300)}`);
    console.log(`  reuse window: ${fmt(ROWS, 0)} rows (${(bytes / MB).toFixed(1)} MB) in ${(first.ms / 1000).toFixed(1)} s; idle RSS ${(idle1 / MB).toFixed(0)} MB, peak ${(first.peakRss / MB).toFixed(0)} MB (V8 heap peak ${(first.peakHeap / MB).toFixed(0)} MB); cost ${s1.cost} USD`);
    results.add(`peak RSS above idle, ${fmt(ROWS, 0)}-row CSV (completed from the reuse window)`, (first.peakRss - idle1) / MB, 'MB', { target: { op: '<=', limit: 100 } });
    results.add(`upload answered (${fmt(ROWS, 0)} rows, reuse window)`, first.ms / 1000, 's');
    results.add('rows per second (reuse window)', ROWS / (first.ms / 1000), 'rows/s');

    // Upload 2: every row a new task whose workflow is started (no worker: they wait in the queue).
    const fresh = csvFile(dir, 'BW', WORKFLOW_ROWS);
    const idle2 = await idleRss();
    const second = await upload(api.url, auth, fresh);
    const s2 = second.body.tasks[0].result[0];
    if (s2.accepted !== WORKFLOW_ROWS) throw new Error(`accepted ${s2.accepted} of ${WORKFLOW_ROWS}: ${JSON.stringify(s2).slice(0, 300)}`);
    console.log(`  workflows: ${fmt(WORKFLOW_ROWS, 0)} rows in ${(second.ms / 1000).toFixed(1)} s; idle RSS ${(idle2 / MB).toFixed(0)} MB, peak ${(second.peakRss / MB).toFixed(0)} MB (V8 heap peak ${(second.peakHeap / MB).toFixed(0)} MB)`);
    results.add(`peak RSS above idle, ${fmt(WORKFLOW_ROWS, 0)}-row CSV (a workflow started per row)`, (second.peakRss - idle2) / MB, 'MB', { target: { op: '<=', limit: 100 } });
    results.add(`upload answered (${fmt(WORKFLOW_ROWS, 0)} rows, workflows started)`, second.ms / 1000, 's');
    results.add('rows per second (workflows started)', WORKFLOW_ROWS / (second.ms / 1000), 'rows/s');
  } finally {
    await api.stop();
    await temporal.stop();
    await db.close();
    await scratch?.drop().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let failed = false;
for (const kind of dbKindsFromArgs()) {
  try {
    await run(kind);
  } catch (error) {
    failed = true;
    console.error(`bulk on ${kind} failed:`, error);
  }
}
process.exit(failed ? 1 : 0);
