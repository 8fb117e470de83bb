/**
 * The service under measurement: `startStack` (database, Temporal dev server, worker with its
 * Chromium, API) on PGlite or on a scratch PostgreSQL database, with the replay server as the
 * marketplaces, a funded account without rate limits, and the service's own log lines captured.
 * `runPart` runs one benchmark part on each database asked for.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createAccount } from '../api/admin/accounts.js';
import { loadConfig } from '../core/config.js';
import type { Db } from '../core/db/db.js';
import { startReplayServer, type ReplayServer } from '../replay/server.js';
import { createScratchDatabase } from '../scripts/scratch-database.js';
import { startStack, type Stack } from '../scripts/stack.js';
import { LogCapture } from './logs.js';
import { dbKindsFromArgs, printHeader, Results, type DbKind } from './machine.js';
import { replayDir, repoRoot } from './pages.js';

/** A running service with everything a benchmark needs. */
export interface BenchStack {
  kind: DbKind;
  stack: Stack;
  db: Db;
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
    // A Temporal server of your own instead of the embedded dev server (the compose topology's
    // Temporal on PostgreSQL); its CPU counts where a part names BENCH_TEMPORAL_PID.
    ...(process.env.TEMPORAL_ADDRESS && { TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS }),
    // Compare the parse on the main thread (0) with the pool: `PARSE_THREADS=0 npm run bench -- floor`.
    ...(process.env.PARSE_THREADS && { PARSE_THREADS: process.env.PARSE_THREADS }),
    // Reads at a lower CPU priority: `READ_NICE=10 npm run bench:saturated`.
    ...(process.env.READ_NICE && { READ_NICE: process.env.READ_NICE }),
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
  const db = stack.db;
  const version = (await db.prisma.$queryRawUnsafe<{ version: string }[]>('SELECT version() AS version'))[0]?.version ?? '';
  const pgVersion = /PostgreSQL [\d.]+/.exec(version)?.[0] ?? version;
  let database: string;
  if (kind === 'pglite') {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string };
    database = `PGlite ${pkg.version} (${pgVersion} in WASM, on its own thread of the service's process, Unix socket, pool 1)`;
  } else {
    database = `${pgVersion} server on 127.0.0.1:5432, scratch database, pool 10`;
  }
  let stopping: Promise<void> | undefined;
  return {
    kind, stack, db, replay, database, logs, url: stack.api.url,
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
export async function benchAccount(db: Db, login = 'bench'): Promise<{ id: number; login: string; key: string; basic: string }> {
  const { id, api_key: key } = await createAccount(db, { login, email: `${login}@example.com`, balance: 1_000_000 });
  await db.prisma.account.update({ where: { id }, data: { requestsPerMinute: 1e9, tasksPerMinute: 1e9 } });
  return { id, login, key, basic: `Basic ${Buffer.from(`${login}:${key}`).toString('base64')}` };
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

/** The replay server over `dir` (default {@link replayDir}) in its own process; resolves with its URL. */
export async function startReplayProcess(dir = replayDir()): Promise<{ url: string; child: ChildProcess }> {
  const script = fileURLToPath(new URL('../replay/server.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, '--dir', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  process.on('exit', () => child.kill());
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const found = /listening on (http:\/\/\S+)/.exec(out);
      if (found) resolve(found[1]!);
    });
    child.on('exit', (code) => reject(new Error(`replay server exited (${code}): ${out}`)));
  });
  return { url, child };
}
