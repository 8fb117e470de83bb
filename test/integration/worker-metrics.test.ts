/**
 * The worker's own Prometheus /metrics (core/metrics-server.ts) and the record of source reads
 * (core/source-reads.ts): the real `readProductPage` activity, run in a Temporal activity context,
 * reads pages through a real Chromium from the replay server (synthetic pages) into PGlite; each
 * read shows in `retail_source_reads_total` on the worker's listener and as a `source_reads` row.
 * A read whose row cannot be written still succeeds. The memory the main thread's heap metrics do
 * not see is there too: each parse thread's heap while its pool is open, and PGlite's WASM memory.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../core/db/embedded-postgres.js';
import { applyMigrations } from '../../core/db/migrator.js';
import { createDb, type Db } from '../../core/db/db.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { startReplayServer, type ReplayServer } from '../../replay/server.js';
import { createProductReadActivities } from '../../worker/activities/product-read.js';
import { BrowserGrid } from '../../worker/browser/browser-grid.js';
import { resolveChromePath } from '../../worker/browser/chrome-path.js';
import { SourceIdentities } from '../../worker/identity/source-identities.js';
import { ParsePool } from '../../worker/parser/parse-pool.js';
import { MARKETPLACES } from '../../core/marketplaces.js';
import { startStandaloneWorker } from '../../worker/main.js';
import { startMetricsServer, type MetricsServer } from '../../core/metrics-server.js';
import { syntheticReplayDir } from '../support/env.js';

let dataDir: string;
let db: EmbeddedPostgres;
let database: Db;
let prisma: PrismaClient;
let replay: ReplayServer;
let grid: BrowserGrid;
let metrics: MetricsServer;
/** Log lines (pino JSON) of the activity's logger. */
const logLines: Record<string, unknown>[] = [];
let activities: ReturnType<typeof createProductReadActivities>;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-worker-metrics-'));
  db = await startEmbeddedPostgres(dataDir);
  await applyMigrations(db.url);
  database = createDb(db.url, 1);
  prisma = database.prisma;
  replay = await startReplayServer({ dir: syntheticReplayDir, port: 0 });
  grid = await BrowserGrid.start({ wsEndpoints: [], chromePath: resolveChromePath(process.env.CHROME_PATH), maxPages: 2, navTimeoutMs: 20_000, sourceOrigin: replay.url });
  const sink = new Writable({ write(chunk, _encoding, done) { logLines.push(JSON.parse(String(chunk))); done(); } });
  const logger = pino({ level: 'info' }, sink);
  const identities = SourceIdentities.fromConfig(loadConfig({}), logger);
  activities = createProductReadActivities({ db: database, source: grid, identities, sourceAttempts: 3, logger, webhookSchedule: { retryDelaysMs: [60_000], timeoutMs: 10_000 } });
  metrics = await startMetricsServer({ port: 0, host: '127.0.0.1', logger: pino({ level: 'silent' }) });
});

afterAll(async () => {
  await metrics?.stop();
  await grid?.close();
  await replay?.close();
  await database?.close();
  await db?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Reads one page through the activity; a thrown ApplicationFailure is returned as `{ failure }`. */
async function read(asin: string, marketplace: string): Promise<{ status?: string; observationId?: string; failure?: string }> {
  try {
    // As Temporal schedules a task's read: 90 s from its start, no schedule-to-close limit.
    const info = { scheduledTimestampMs: Date.now(), currentAttemptScheduledTimestampMs: Date.now(), startToCloseTimeoutMs: 90_000, scheduleToCloseTimeoutMs: 0 };
    return await new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') }).run(activities.readProductPage, { asin, marketplace });
  } catch (error) {
    return { failure: (error as { type?: string }).type ?? String(error) };
  }
}

/** The value of `retail_source_reads_total{marketplace,outcome}` on the worker's /metrics (0 when absent). */
async function readsCounter(marketplace: string, outcome: string): Promise<number> {
  const res = await fetch(`${metrics.url}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  const match = text.match(new RegExp(`^retail_source_reads_total\\{marketplace="${marketplace}",outcome="${outcome}"\\} (\\d+)$`, 'm'));
  return match ? Number(match[1]) : 0;
}

describe('worker /metrics and source_reads', () => {
  it('serves Prometheus text on /metrics only', async () => {
    const res = await fetch(`${metrics.url}/metrics`);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('# TYPE retail_source_reads_total counter');
    expect(text).toContain('process_cpu_seconds_total');
    expect((await fetch(`${metrics.url}/`)).status).toBe(404);
    expect((await fetch(`${metrics.url}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('every read, whatever its outcome, counts on /metrics and leaves a source_reads row', async () => {
    const cases = [
      { asin: 'B0000000P1', marketplace: 'de', outcome: 'no_bsr', answer: { status: 'no_bsr' } },
      { asin: 'B0000000F1', marketplace: 'com', outcome: 'not_found', answer: { status: 'not_found' } },
      { asin: 'B0000000C1', marketplace: 'br', outcome: 'blocked', answer: { failure: 'SourceBlocked' } },
      { asin: 'B0000000O1', marketplace: 'com', outcome: 'blocked', answer: { failure: 'SourceBlocked' } },
    ];
    const before = await Promise.all(cases.map((c) => readsCounter(c.marketplace, c.outcome)));
    for (const c of cases) expect(await read(c.asin, c.marketplace)).toMatchObject(c.answer);
    const after = await Promise.all(cases.map((c) => readsCounter(c.marketplace, c.outcome)));
    expect(after.map((n, i) => n - before[i]!)).toEqual([1, 1, 1, 1]);
    const rows = await prisma.sourceRead.findMany({ orderBy: { id: 'asc' } });
    expect(rows.map((r) => [r.marketplace, r.outcome])).toEqual(cases.map((c) => [c.marketplace, c.outcome]));
    for (const row of rows) {
      expect(row.durationMs).toBeGreaterThan(0);
      expect(Date.now() - row.readAt.getTime()).toBeLessThan(5 * 60_000);
    }
  });

  it('a read whose row cannot be written still answers, still counts, and logs the error', async () => {
    await prisma.$executeRawUnsafe('DROP TABLE source_reads');
    const before = await readsCounter('de', 'no_bsr');
    const answer = await read('B0000000P1', 'de');
    expect(answer).toMatchObject({ status: 'no_bsr', observationId: expect.stringMatching(/^\d+$/) });
    expect(await prisma.observation.count({ where: { id: BigInt(answer.observationId!) } })).toBe(1);
    expect(await readsCounter('de', 'no_bsr')).toBe(before + 1);
    expect(logLines.some((l) => l.msg === 'could not record the source read' && l.marketplace === 'de' && l.outcome === 'no_bsr')).toBe(true);
  });

  it('shows the heap of each parse thread while its pool is open, and the WASM memory of the embedded database', async () => {
    const scrape = async () => (await fetch(`${metrics.url}/metrics`)).text();
    const threadLines = (text: string) => [...text.matchAll(/^retail_parse_thread_heap_bytes\{thread="(\d+)",kind="(\w+)"\} (\d+)$/gm)].map((m) => ({ thread: m[1], kind: m[2], bytes: Number(m[3]) }));
    expect(threadLines(await scrape())).toEqual([]);
    const pool = new ParsePool(2);
    try {
      // A parse on each thread: both are running when scraped.
      await Promise.all([1, 2].map(() => pool.parse(Buffer.from('<html><body><p>x</p></body></html>'), 'text/html', MARKETPLACES[0]!).catch(() => undefined)));
      const lines = threadLines(await scrape());
      expect(lines.map((l) => `${l.thread} ${l.kind}`).sort()).toEqual(['0 external', '0 total', '0 used', '1 external', '1 total', '1 used']);
      for (const l of lines.filter((x) => x.kind !== 'external')) expect(l.bytes).toBeGreaterThan(1024 * 1024);
      for (const t of ['0', '1']) {
        const of = (kind: string) => lines.find((l) => l.thread === t && l.kind === kind)!.bytes;
        expect(of('used')).toBeLessThanOrEqual(of('total'));
      }
    } finally {
      await pool.close();
    }
    const after = await scrape();
    expect(threadLines(after)).toEqual([]);
    const wasm = Number(/^retail_embedded_database_memory_bytes (\d+)$/m.exec(after)?.[1]);
    // PGlite's WASM memory: tens of MiB at least once PostgreSQL runs in it.
    expect(wasm).toBeGreaterThan(16 * 1024 * 1024);
  });

  it('stop() closes the listener', async () => {
    await metrics.stop();
    await expect(fetch(`${metrics.url}/metrics`)).rejects.toThrow();
  });
});

describe('the standalone worker (node dist/worker/main.js)', () => {
  it('WORKER_METRICS_PORT defaults to 9464; 0 turns the listener off', () => {
    expect(loadConfig({}).WORKER_METRICS_PORT).toBe(9464);
    expect(loadConfig({ WORKER_METRICS_PORT: '0' }).WORKER_METRICS_PORT).toBe(0);
    expect(() => loadConfig({ WORKER_METRICS_PORT: '70000' })).toThrow(/WORKER_METRICS_PORT/);
  });

  it('binds its metrics port before anything else starts: a taken port fails at once', async () => {
    const taken = http.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const config = loadConfig({ WORKER_METRICS_PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
      // An address where no Temporal answers: reaching it would fail differently, and later.
      await expect(startStandaloneWorker({ config, db: database, temporalAddress: '127.0.0.1:1', logger: pino({ level: 'silent' }) }))
        .rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      taken.close();
    }
  });
});
