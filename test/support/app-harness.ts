/**
 * buildApp on a real database (embedded PGlite, or a scratch database on the real PostgreSQL),
 * listening on a free port, with Temporal replaced at its boundary by a launcher that records
 * starts. For API behaviour that does not depend on page reads.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../api/app.js';
import type { MonitorLauncher } from '../../api/services/monitor-launcher.js';
import type { TaskLauncher } from '../../api/services/task-launcher.js';
import { loadConfig } from '../../core/config.js';
import { startEmbeddedPostgres } from '../../core/db/embedded-postgres.js';
import { applyMigrations } from '../../core/db/migrator.js';
import { createPrisma, type PrismaClient } from '../../core/db/prisma.js';
import { createLogger, type Logger } from '../../core/logger.js';
import { flushUsage } from '../../core/usage.js';
import { createScratchDatabase } from './env.js';

export interface TestApp {
  url: string;
  dbUrl: string;
  dataDir: string;
  prisma: PrismaClient;
  /** Task ids whose workflow the API asked to start. */
  started: string[];
  /** Webhook deliveries the API asked to start at once (tasks completed from the reuse window). */
  webhookStarts: { taskId: string; kinds: string[] }[];
  /** Subscription ids whose monitor the API asked to start / configure / stop. */
  monitors: { started: number[]; configured: number[]; stopped: number[] };
  /** A second app process-alike on the same database (shares nothing but the database). */
  another(): Promise<{ url: string; close(): Promise<void> }>;
  close(): Promise<void>;
}

/**
 * Starts the app. `logger`: where its logs go (default: nowhere); `prismaFor`: makes the app's
 * Prisma client instead of `createPrisma(url, pool)` (pool limits under test).
 */
export async function startTestApp(options: {
  database: 'pglite' | 'postgres';
  env?: Record<string, string>;
  logger?: Logger;
  prismaFor?: (dbUrl: string) => PrismaClient | Promise<PrismaClient>;
}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-app-'));
  let dbUrl: string;
  let stopDb: () => Promise<void>;
  if (options.database === 'pglite') {
    const db = await startEmbeddedPostgres(dataDir);
    dbUrl = db.url;
    stopDb = db.stop;
  } else {
    const db = await createScratchDatabase();
    dbUrl = db.url;
    stopDb = db.drop;
  }
  await applyMigrations(dbUrl);
  const pool = options.database === 'pglite' ? 1 : 10;
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', LIVE_BUDGET: '300ms', ...options.env });
  const started: string[] = [];
  const webhookStarts: { taskId: string; kinds: string[] }[] = [];
  const launcher: TaskLauncher = {
    start: async (input) => { started.push(input.taskId); },
    startWebhooks: async (input) => { webhookStarts.push(input); },
    waitFor: async () => false,
    cancel: async () => undefined,
  };
  const monitorCalls = { started: [] as number[], configured: [] as number[], stopped: [] as number[] };
  const monitors: MonitorLauncher = {
    start: async (target) => { monitorCalls.started.push(target.subscriptionId); },
    configure: async (target) => { monitorCalls.configured.push(target.subscriptionId); },
    resume: async () => undefined,
    stop: async (id) => { monitorCalls.stopped.push(id); },
  };
  const listen = async (prisma: PrismaClient) => {
    const server = buildApp({ config, prisma, launcher, monitors, logger: options.logger ?? createLogger('silent') }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
  const prisma = options.prismaFor ? await options.prismaFor(dbUrl) : createPrisma(dbUrl, pool);
  const main = await listen(prisma);
  const others: (() => Promise<void>)[] = [];
  return {
    url: main.url, dbUrl, dataDir, prisma, started, webhookStarts, monitors: monitorCalls,
    async another() {
      const otherPrisma = createPrisma(dbUrl, pool);
      const other = await listen(otherPrisma);
      const close = async () => { other.server.close(); await flushUsage(otherPrisma); await otherPrisma.$disconnect(); };
      others.push(close);
      return { url: other.url, close };
    },
    async close() {
      for (const close of others) await close();
      main.server.close();
      // As the API process does at shutdown: counters of the last second are written, not
      // attempted later on a closed pool.
      await flushUsage(prisma);
      await prisma.$disconnect();
      await stopDb();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
