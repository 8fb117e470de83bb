/**
 * The one way tests get an API app: `startTestApp(options)` builds it (api/app.ts `buildApp`, as
 * api/server.ts does) on a real database — embedded PGlite, a scratch database on the real
 * PostgreSQL, or a database that is down — with Temporal replaced at its boundary by launchers
 * that record what the API asked for (or real launchers on a given Temporal server), and either
 * listens on a free port (REST, the Koa stack) or serves in-process only (GraphQL through
 * `yoga.fetch`). Whole-stack tests (Temporal, worker, Chromium) use `startTestStack`
 * (test/support/test-stack.ts) instead.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrismaPg } from '@prisma/adapter-pg';
import { Client, Connection } from '@temporalio/client';
import type Koa from 'koa';
import pg from 'pg';
import { buildApp, type AppDeps } from '../../api/app.js';
import type { AppState } from '../../api/rest/context.js';
import type { GraphQLDeps } from '../../api/graphql/context.js';
import { createGraphQLServer, type GraphQLServer } from '../../api/graphql/yoga.js';
import { temporalMonitorLauncher, type MonitorLauncher } from '../../api/services/monitor-launcher.js';
import { temporalTaskLauncher, type TaskLauncher } from '../../api/services/task-launcher.js';
import { temporalWebhookLauncher, type WebhookLauncher } from '../../core/temporal/webhook-launcher.js';
import { loadConfig, type Config } from '../../core/config.js';
import { startEmbeddedPostgres } from '../../core/db/embedded-postgres.js';
import { applyMigrations } from '../../core/db/migrator.js';
import { createDb, dbOf, type Db } from '../../core/db/db.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { createLogger, type Logger } from '../../core/logger.js';
import { flushUsage } from '../../core/usage.js';
import { PrismaClient as GeneratedPrismaClient } from '../../prisma/generated/client/client.js';
import { createScratchDatabase } from './env.js';
import { gqlClient, type GqlClient } from './graphql.js';

export interface TestAppOptions {
  /**
   * `pglite` (default): embedded PostgreSQL in a temporary DATA_DIR; `postgres`: a scratch
   * database on the real PostgreSQL (test/support/env.ts), dropped at close; `down`: a Prisma
   * client on a port where no database listens (nothing is started).
   */
  database?: 'pglite' | 'postgres' | 'down';
  /** Apply the migrations (default true); false leaves the database empty (/ready tests). */
  migrate?: boolean;
  /** Config variables over the test defaults (`LOG_LEVEL=silent`, `LIVE_BUDGET=300ms`, DATA_DIR). */
  env?: Record<string, string>;
  /** Where the app's logs go (default nowhere). */
  logger?: Logger;
  /** Makes the app's `Db` instead of `createDb(url, pool)` (pool limits, counting clients); its `close()` is called at the end. */
  dbFor?: (dbUrl: string) => Db | Promise<Db>;
  /** Real Temporal launchers on the server at `address` instead of recording ones. */
  temporal?: { address: string };
  /** A task launcher of the test's own instead of the recording one. */
  launcher?: TaskLauncher;
  /** A monitor launcher of the test's own instead of the recording one; `false`: none (no monitoring). */
  monitors?: MonitorLauncher | false;
  /** Listen on a free port on 127.0.0.1 (default true); false serves in-process only (`yoga`, `gql`). */
  listen?: boolean;
}

export interface TestApp {
  /** Base URL of the listening app (throws when started with `listen: false`). */
  readonly url: string;
  dbUrl: string;
  dataDir: string;
  config: Config;
  /** The app's database. */
  db: Db;
  /** `db.prisma`, for tests reading and writing tables directly. */
  prisma: PrismaClient;
  /** The dependencies the app was built with. */
  deps: AppDeps;
  /** The Koa app (its middleware and routers), not necessarily listening. */
  koa: Koa<AppState>;
  /** Task ids whose workflow the API asked to start (recording launcher). */
  started: string[];
  /** Webhook deliveries the API asked to start at once (tasks completed from the reuse window). */
  webhookStarts: { taskId: string; kinds: string[] }[];
  /** Subscription ids whose monitor the API asked to start / configure / stop (recording monitors). */
  monitors: { started: number[]; configured: number[]; stopped: number[]; resumed: number[][] };
  /** Events the API asked to deliver again (recording webhook launcher). */
  redeliveries: { eventId: string; kind: string; accountId: number }[];
  /**
   * A GraphQL server on the app's dependencies, `overrides` replacing some (another `Db`,
   * no monitors, another config), served in-process through `yoga.fetch`: no port.
   */
  yoga(overrides?: Partial<GraphQLDeps>): GraphQLServer;
  /** A GraphQL client of the app's own yoga (in-process), authenticated as `auth` when given. */
  gql(auth?: { login?: string; key: string }): GqlClient;
  /**
   * Another app on the same database (a `Db` of its own, as another API process has),
   * listening; closed with this one. `env` replaces the options' `env` over the test defaults
   * (real launchers then use its TEMPORAL_NAMESPACE); `logger` replaces the logger.
   */
  another(options?: { env?: Record<string, string>; logger?: Logger }): Promise<{ url: string; koa: Koa<AppState>; close(): Promise<void> }>;
  close(): Promise<void>;
}

/** Recording launchers: what the API asked of Temporal, which is not under test. */
function recorders() {
  const started: string[] = [];
  const webhookStarts: { taskId: string; kinds: string[] }[] = [];
  const calls = { started: [] as number[], configured: [] as number[], stopped: [] as number[], resumed: [] as number[][] };
  const redeliveries: { eventId: string; kind: string; accountId: number }[] = [];
  const webhookLauncher: WebhookLauncher = {
    redeliver: async (event) => { redeliveries.push(event); return `recorded:${event.eventId}:${redeliveries.length}`; },
  };
  const launcher: TaskLauncher = {
    start: async (input) => { started.push(input.taskId); },
    startWebhooks: async (input) => { webhookStarts.push(input); },
    waitFor: async () => false,
    cancel: async () => undefined,
  };
  const monitors: MonitorLauncher = {
    start: async (target) => { calls.started.push(target.subscriptionId); },
    configure: async (target) => { calls.configured.push(target.subscriptionId); },
    resume: async (ids) => { calls.resumed.push(ids); },
    stop: async (id) => { calls.stopped.push(id); },
  };
  return { started, webhookStarts, calls, launcher, monitors, redeliveries, webhookLauncher };
}

/** Listens `koa` on a free port of 127.0.0.1. */
async function listen(koa: Koa<AppState>): Promise<{ server: Server; url: string }> {
  const server = koa.listen(0, '127.0.0.1');
  await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** Starts the app; see `TestAppOptions` for the defaults. On failure stops what it started, then rethrows. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? 'pglite';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-app-'));
  const cleanups: (() => Promise<void>)[] = [async () => fs.rmSync(dataDir, { recursive: true, force: true })];
  const closeAll = async () => { for (const c of cleanups.splice(0).reverse()) await c(); };
  try {
    let dbUrl = 'postgresql://nobody@127.0.0.1:1/none';
    if (database === 'pglite') {
      const db = await startEmbeddedPostgres(dataDir);
      cleanups.push(db.stop);
      dbUrl = db.url;
    } else if (database === 'postgres') {
      const db = await createScratchDatabase();
      cleanups.push(db.drop);
      dbUrl = db.url;
    }
    if (database !== 'down' && options.migrate !== false) await applyMigrations(dbUrl);
    const pool = database === 'postgres' ? 10 : 1;
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', LIVE_BUDGET: '300ms', ...options.env });
    const logger = options.logger ?? createLogger('silent');
    const db = options.dbFor ? await options.dbFor(dbUrl) : createDb(dbUrl, pool);
    // As the API process does at shutdown: counters of the last second are written, not attempted
    // later on a closed pool (a database that is down has none to write).
    cleanups.push(async () => {
      try {
        try { await flushUsage(db); } finally { await db.close(); }
      } catch (error) {
        if (database !== 'down') throw error;
      }
    });

    const rec = recorders();
    let connection: Connection | undefined;
    if (options.temporal) {
      connection = await Connection.connect({ address: options.temporal.address });
      cleanups.push(() => connection!.close());
    }
    /** The launchers of an app with `appConfig`: the test's own, else real ones (its namespace), else recording ones. */
    const launchersFor = (appConfig: Config): Pick<AppDeps, 'launcher' | 'monitors' | 'webhookLauncher'> => {
      const client = connection && new Client({ connection, namespace: appConfig.TEMPORAL_NAMESPACE });
      const launcher = options.launcher ?? (client ? temporalTaskLauncher(client, appConfig) : rec.launcher);
      const webhookLauncher = client ? temporalWebhookLauncher(client, appConfig) : rec.webhookLauncher;
      if (options.monitors === false) return { launcher, monitors: undefined, webhookLauncher };
      return { launcher, monitors: options.monitors ?? (client ? temporalMonitorLauncher(client, appConfig) : rec.monitors), webhookLauncher };
    };
    const deps: AppDeps = { config, db, logger, ...launchersFor(config) };
    const koa = buildApp(deps);
    let url: string | undefined;
    if (options.listen !== false) {
      const main = await listen(koa);
      cleanups.push(() => closeServer(main.server));
      url = main.url;
    }
    const makeYoga = (overrides: Partial<GraphQLDeps> = {}) => createGraphQLServer({ ...deps, ...overrides });
    let ownYoga: GraphQLServer | undefined;
    return {
      get url() {
        if (!url) throw new Error('this test app does not listen (listen: false); use gql() / yoga()');
        return url;
      },
      dbUrl, dataDir, config, db, prisma: db.prisma, deps, koa,
      started: rec.started, webhookStarts: rec.webhookStarts, monitors: rec.calls, redeliveries: rec.redeliveries,
      yoga: makeYoga,
      gql: (auth) => gqlClient((ownYoga ??= makeYoga()), auth),
      async another(other = {}) {
        const otherDb = createDb(dbUrl, pool);
        const otherConfig = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', LIVE_BUDGET: '300ms', ...(other.env ?? options.env) });
        const otherKoa = buildApp({ ...deps, ...launchersFor(otherConfig), db: otherDb, config: otherConfig, logger: other.logger ?? logger });
        const served = await listen(otherKoa);
        let closing: Promise<void> | undefined;
        const close = () => (closing ??= (async () => { await closeServer(served.server); await flushUsage(otherDb); await otherDb.close(); })());
        // Closed before the main app's database and client.
        cleanups.push(close);
        return { url: served.url, koa: otherKoa, close };
      },
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * A `Db` whose every SQL statement is recorded in `statements` (the pg clients of its own pool are
 * wrapped; driver adapters have no `$on('query')`); the hot paths' SQL goes through its Prisma
 * client too. Pass it as `dbFor`, or close it yourself (`close()` writes pending usage first).
 */
export function countingDb(url: string): Db & { statements: string[] } {
  const statements: string[] = [];
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0] as string | { text?: string } | undefined;
      statements.push(typeof first === 'string' ? first : (first?.text ?? ''));
      return query(...args);
    };
  });
  const db = dbOf(new GeneratedPrismaClient({ adapter: new PrismaPg(pool) }));
  let closing: Promise<void> | undefined;
  return {
    ...db, statements,
    close: () => (closing ??= (async () => { await flushUsage(db); await db.prisma.$disconnect(); await pool.end().catch(() => undefined); })()),
  };
}
