/**
 * The service under measurement: `startStack` (database, Temporal dev server, worker with its
 * Chromium, API) on PGlite or on a scratch PostgreSQL database, with the replay server as the
 * marketplaces, a funded account without rate limits, and the service's own log lines captured
 * (the worker logs each read's `loadMs`). Also the HTTP client (its own process, bench/client.ts),
 * the autocannon runner (its own process, bench/load.ts), the CPU profiler switch and `runPart`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createAccount } from '../api/admin/accounts.js';
import { loadConfig } from '../core/config.js';
import type { PrismaClient } from '../core/db/prisma.js';
import { MARKETPLACES } from '../core/marketplaces.js';
import type { Product } from '../core/product.js';
import { loadManifest } from '../replay/manifest.js';
import { startReplayServer, type ReplayServer } from '../replay/server.js';
import { startStack, type Stack } from '../scripts/stack.js';
import { createScratchDatabase } from '../test/support/env.js';
import { cpuShare, cpuSnapshot, dbKindsFromArgs, printHeader, Results, type CpuShare, type DbKind } from './machine.js';

export const repoRoot = fileURLToPath(new URL('../', import.meta.url));
export const sharedPagesDir = path.resolve(repoRoot, '../shared/fixtures/pages');
export const syntheticPagesDir = path.join(repoRoot, 'test/fixtures/replay');

/** The replay folder the benchmarks read: the shared saved pages, else the synthetic ones. */
export function replayDir(): string {
  return fs.existsSync(path.join(sharedPagesDir, 'MANIFEST.tsv')) ? sharedPagesDir : syntheticPagesDir;
}

/** A readable product page of the replay folder (served with HTTP 200, parsed as a product). */
export interface ReplayProduct {
  asin: string;
  /** Marketplace code (`com`, `de`, ...). */
  marketplace: string;
  file: string;
  bytes: number;
}

/** The product pages (kinds product, no_bsr, unavailable) of `dir` that the replay server serves. */
export async function replayProducts(dir: string): Promise<ReplayProduct[]> {
  const manifest = await loadManifest(dir);
  const out: ReplayProduct[] = [];
  for (const page of manifest.pages.values()) {
    if (!['product', 'no_bsr', 'unavailable'].includes(page.kind)) continue;
    const marketplace = MARKETPLACES.find((m) => m.domain === page.domain);
    if (!marketplace) continue;
    out.push({ asin: page.asin, marketplace: marketplace.code, file: page.file, bytes: fs.statSync(page.filePath).size });
  }
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

/** One log line the service wrote (pino JSON). */
export type LogLine = Record<string, unknown> & { level: number; msg?: string; time: number };

/** One stored read as the worker logged it: its key (`marketplace:ASIN`) and its timings, ms. */
export interface LoggedRead {
  key: string;
  time: number;
  /** The browser grid's page load (slot acquired → bytes taken). */
  loadMs: number;
  /** Waiting for a page slot (the activity's fetch time minus loadMs). */
  waitMs: number;
  /** Decoding and parsing the page. */
  parseMs: number;
  /** Storing the observation, recording the read and completing the task. */
  storeMs: number;
}

/** Keeps the service's log lines in memory; warnings and errors are also echoed (first 20). */
export class LogCapture {
  readonly lines: LogLine[] = [];
  private echoed = 0;

  write(chunk: string): void {
    for (const text of chunk.split('\n')) {
      if (!text) continue;
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        continue;
      }
      if (line.component === 'temporal-sdk' && line.level < 40) continue;
      this.lines.push(line);
      if (line.level >= 40 && this.echoed < 20) {
        this.echoed++;
        process.stderr.write(`  [service ${line.level >= 50 ? 'error' : 'warn'}] ${String(line.msg)} ${line.err ? JSON.stringify((line.err as { message?: string }).message) : ''}\n`);
      }
    }
  }

  /** `loadMs` of every read the worker logged since index `from`, by `<marketplace>:<asin>`. */
  reads(from = 0): LoggedRead[] {
    const num = (v: unknown) => (typeof v === 'number' ? v : NaN);
    return this.lines.slice(from).flatMap((l) =>
      typeof l.loadMs === 'number' && (l.msg === 'observation stored' || l.msg === 'product not found')
        ? [{ key: `${String(l.marketplace)}:${String(l.asin)}`, loadMs: l.loadMs, time: l.time, waitMs: num(l.waitMs), parseMs: num(l.parseMs), storeMs: num(l.storeMs) }]
        : [],
    );
  }
}

/** A running service with everything a benchmark needs. */
export interface BenchStack {
  kind: DbKind;
  stack: Stack;
  prisma: PrismaClient;
  replay: ReplayServer;
  /** `PGlite 0.x (PostgreSQL 17.x, WASM, pool 1)` or `PostgreSQL 15.x (pool 10)`. */
  database: string;
  logs: LogCapture;
  /** Base URL of the API. */
  url: string;
  stop(): Promise<void>;
}

/** Starts the whole service on `kind` with extra configuration `env` (e.g. `REUSE_WINDOW: '0s'`). */
export async function startBenchStack(kind: DbKind, env: Record<string, string> = {}): Promise<BenchStack> {
  const replay = await startReplayServer({ dir: replayDir(), port: 0 });
  const scratch = kind === 'postgres' ? await createScratchDatabase() : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-bench-'));
  const logs = new LogCapture();
  const logger = pino({ name: 'retail-data-api', level: 'info' }, { write: (s: string) => logs.write(s) });
  const config = loadConfig({
    PATH: process.env.PATH,
    DATA_DIR: dataDir,
    PORT: '0',
    RETAIL_SOURCE_ORIGIN: replay.url,
    ...(scratch && { DATABASE_URL: scratch.url }),
    ...(process.env.CHROME_PATH && { CHROME_PATH: process.env.CHROME_PATH }),
    ...(process.env.TEMPORAL_CLI_PATH && { TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH }),
    LOG_LEVEL: 'info',
    ...env,
  });
  let stack: Stack;
  try {
    stack = await startStack(config, logger, { temporalUiPort: false, persistTemporal: false });
  } catch (error) {
    await replay.close();
    await scratch?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const prisma = stack.db.prisma;
  const version = (await prisma.$queryRawUnsafe<{ version: string }[]>('SELECT version() AS version'))[0]?.version ?? '';
  const pgVersion = /PostgreSQL [\d.]+/.exec(version)?.[0] ?? version;
  let database: string;
  if (kind === 'pglite') {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string };
    database = `PGlite ${pkg.version} (${pgVersion} in WASM, in the service's process, Unix socket, pool 1)`;
  } else {
    database = `${pgVersion} server on 127.0.0.1:5432, scratch database, pool 10`;
  }
  let stopping: Promise<void> | undefined;
  return {
    kind, stack, prisma, replay, database, logs, url: stack.api.url,
    stop: () =>
      (stopping ??= (async () => {
        await stack.stop();
        await replay.close();
        await scratch?.drop().catch((error: unknown) => console.error(`could not drop the scratch database: ${String(error)}`));
        fs.rmSync(dataDir, { recursive: true, force: true });
      })()),
  };
}

/** A funded account (USD 1,000,000) whose rate limits never bite; returns its credentials. */
export async function benchAccount(prisma: PrismaClient, login = 'bench'): Promise<{ id: number; login: string; key: string; basic: string }> {
  const { id, api_key: key } = await createAccount(prisma, { login, email: `${login}@example.com`, balance: 1_000_000 });
  await prisma.account.update({ where: { id }, data: { requestsPerMinute: 1e9, tasksPerMinute: 1e9 } });
  return { id, login, key, basic: `Basic ${Buffer.from(`${login}:${key}`).toString('base64')}` };
}

/** The HTTP client process (bench/client.ts), started on first use. */
let client: { send(line: object): Promise<ClientAnswer> } | undefined;

/** One answer of the client process; `bytes` and `taskCodes` instead of `body` for a brief call. */
interface ClientAnswer { status: number; ms: number; body: string; bytes?: number; taskCodes?: number[]; error?: string }

function httpClient(): NonNullable<typeof client> {
  if (client) return client;
  const script = fileURLToPath(new URL('./client.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.unref();
  const waiting = new Map<number, (answer: ClientAnswer) => void>();
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const answer = JSON.parse(buffer.slice(0, nl)) as ClientAnswer & { id: number };
      buffer = buffer.slice(nl + 1);
      waiting.get(answer.id)?.(answer);
      waiting.delete(answer.id);
    }
  });
  (child.stdout as unknown as { unref?: () => void }).unref?.();
  let next = 0;
  client = {
    send: (line) =>
      new Promise((resolve) => {
        const id = next++;
        waiting.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ ...line, id })}\n`);
      }),
  };
  return client;
}

/**
 * One HTTP call, made one at a time by the client process (bench/client.ts) so that its latency
 * (ms, from sending to the last byte of the body) is measured outside the service's event loop.
 */
export async function call(url: string, auth: string, method: 'GET' | 'POST', body?: unknown): Promise<{ status: number; body: any; ms: number }> {
  const answer = await httpClient().send({
    url, method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (answer.error) throw new Error(`${method} ${url} failed: ${answer.error}`);
  let parsed: unknown = answer.body;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    /* not JSON */
  }
  return { status: answer.status, body: parsed, ms: answer.ms };
}

/**
 * Like `call`, for measured loops: the client process keeps the body and answers only its size
 * (bytes) and the envelope's task status codes, so no CPU of the service's process goes to them.
 */
export async function briefCall(url: string, auth: string, method: 'GET' | 'POST', body?: unknown): Promise<{ status: number; ms: number; bytes: number; taskCodes: number[] }> {
  const answer = await httpClient().send({
    url, method, brief: true,
    headers: { authorization: auth, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (answer.error) throw new Error(`${method} ${url} failed: ${answer.error}`);
  return { status: answer.status, ms: answer.ms, bytes: answer.bytes ?? 0, taskCodes: answer.taskCodes ?? [] };
}

/** Options of one autocannon run (see bench/load.ts). */
export interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds of load; or send `amount` requests in all and measure how long they take. */
  duration?: number;
  amount?: number;
  /** Each connection cycles through these requests. */
  requests: { method: 'GET' | 'POST'; path: string; body?: string }[];
  headers: Record<string, string>;
  /** Per-request timeout, seconds. */
  timeout?: number;
}

/** What bench/load.ts reports of one autocannon run. */
export interface LoadResult {
  requests: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  mean: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationSec: number;
  /** Status codes of the answers (autocannon's statusCodeStats). */
  statusCodes: Record<string, number>;
  /** CPU time autocannon's process used, ms. */
  cpuMs: number;
  /** Where the machine's CPU went during the run (autocannon counted in `bench`). */
  cpu: CpuShare;
}

/** Runs autocannon in a child process (so the load generator does not share the service's event loop). */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const script = fileURLToPath(new URL('./load.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const before = cpuSnapshot();
  child.stdin.end(JSON.stringify(options));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const after = cpuSnapshot();
  if (code !== 0) throw new Error(`autocannon run failed (exit ${code}): ${out}`);
  const result = JSON.parse(out.trim().split('\n').at(-1)!) as Omit<LoadResult, 'cpu'>;
  // autocannon has exited: its CPU time is not in /proc any more, so move it from `other` to `bench`.
  const cpu = cpuShare(before, after);
  const wallCoreMs = (after.at - before.at) * os.cpus().length;
  const loadPct = wallCoreMs > 0 ? (100 * result.cpuMs) / wallCoreMs : 0;
  const moved = Math.min(cpu.other, loadPct);
  return { ...result, cpu: { ...cpu, bench: cpu.bench + moved, other: cpu.other - moved } };
}

/** A Product shaped like a real page's (6 variants, 2 sub-ranks, 8 details), observed now. */
export function sampleProduct(asin: string, marketplace = 'com', observedAt = new Date()): Product {
  return {
    asin, marketplace, url: `https://www.amazon.com/dp/${asin}`, observed_at: observedAt.toISOString(), status: 'ok',
    title: 'Palarn Women Tops, Sexy O-Neck Flora Printed Sleeveless Vest Chiffon Tops T-Shirt Blouse',
    byline: ['Palarn'], variant: 'X-Large',
    variants: ['Small', 'Medium', 'Large', 'X-Large', 'XX-Large', 'XXX-Large'].map((name, i) => ({ name, asin: `B07CL39Z${i}Q` })),
    price: { amount: 12.27, currency: 'USD' },
    bsr: { rank: 409707, category: 'Clothing, Shoes & Jewelry', subcategories: [{ rank: 15457, category: 'Tops, Tees & Blouses' }, { rank: 210076, category: 'Shops' }] },
    rating: 4.3, ratings_count: 1287,
    image_url: 'https://images-na.ssl-images-amazon.com/images/I/71WSLCM%2BGYL._UL1071_.jpg',
    details: {
      shipping_weight: '1.6 ounces (View shipping rates and policies)', asin, date_first_listed_on_amazon: 'March 28, 2018',
      item_model_number: 'PLN-2018-041', department: 'Womens', manufacturer: 'Palarn', product_dimensions: '10 x 8 x 0.5 inches', is_discontinued_by_manufacturer: 'No',
    },
    parser_version: 'bench-1',
  };
}

/**
 * Runs `fn`; when BENCH_CPU_PROFILE names a folder, records a V8 CPU profile of this process (the
 * service: API, worker, PGlite) meanwhile and writes it there as `<name>.cpuprofile`
 * (summarise it with bench/profile-summary.ts).
 */
export async function withCpuProfile<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${name}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    console.log(`  CPU profile of the service written to ${file}`);
    session.disconnect();
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs one part on each database asked for (`--db`, default both), each on a freshly started
 * service, then exits (the Temporal client libraries keep handles open).
 */
export async function runPart(
  part: string,
  title: string,
  env: Record<string, string>,
  measure: (bench: BenchStack, results: Results) => Promise<void>,
): Promise<void> {
  let failed = false;
  for (const kind of dbKindsFromArgs()) {
    const t0 = performance.now();
    let bench: BenchStack | undefined;
    try {
      bench = await startBenchStack(kind, env);
      printHeader(title, bench.database);
      console.log(`  service started in ${((performance.now() - t0) / 1000).toFixed(1)} s; replay folder ${replayDir()}`);
      await measure(bench, new Results(part, kind));
    } catch (error) {
      failed = true;
      console.error(`${part} on ${kind} failed:`, error);
    } finally {
      // Let requests the load generator abandoned at the end of a run finish before the database goes.
      await sleep(1500);
      await bench?.stop();
    }
  }
  process.exit(failed ? 1 : 0);
}
