/**
 * The worker process: Temporal worker with the browser grid and the database.
 * `startWorker` is used by `npm start` in-process; running this file starts a standalone worker
 * (production: `node dist/worker/main.js`), which also serves its own Prometheus /metrics on
 * WORKER_METRICS_PORT (`startStandaloneWorker`; behind METRICS_TOKEN when set).
 */
import { Client, Connection } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/db.js';
import type { Logger } from '../core/logger.js';
import type { TaskCompletions } from '../core/task-completions.js';
import type { HostResolver } from '../core/webhooks/pinned-request.js';
import { startMetricsServer, type MetricsServer } from '../core/metrics-server.js';
import { isMainModule, runStandalone } from '../core/standalone.js';
import { assertSearchAttributes } from '../core/temporal/search-attributes.js';
import { temporalTaskLauncher } from '../core/temporal/task-launcher.js';
import { BrowserGrid } from './browser/browser-grid.js';
import { SourceIdentities } from './identity/source-identities.js';
import { createPageParser } from './parser/parse-pool.js';
import { ensureMaintenanceSchedules } from './schedules.js';
import { connectTemporal, createWorker } from './worker.js';

/** A running worker; `stop()` drains in-flight activities, then closes the browsers. */
export interface RunningWorker {
  worker: Worker;
  grid: BrowserGrid;
  /**
   * The connection the workers poll on. A client built on it in this process may start workflows
   * eagerly (worker/worker.ts `connectTemporal`). Closed by `stop()` unless it was passed in.
   */
  connection: NativeConnection;
  stop(): Promise<void>;
}

/**
 * Starts the worker and registers the maintenance schedules (worker/schedules.ts; a refusal is
 * logged, the worker runs on). `webhookResolver` replaces the system resolver of webhook
 * deliveries (tests). `connection` (from `connectTemporal`) is polled on instead of a connection of
 * its own, and left open by `stop()`: its owner may share it with the API's client (scripts/stack.ts).
 * @throws before any browser starts when the namespace lacks the custom search attributes
 *   (core/temporal/search-attributes.ts; the message names them and the command that creates them).
 */
export async function startWorker(options: { config: Config; db: Db; temporalAddress: string; logger: Logger; webhookResolver?: HostResolver; connection?: NativeConnection; completions?: TaskCompletions }): Promise<RunningWorker> {
  const { config } = options;
  const logger = options.logger.child({ component: 'worker' });
  // A client for the maintenance activities (the reconciler starts and looks at workflows) and the schedules.
  const clientConnection = await Connection.connect({ address: options.temporalAddress });
  const client = new Client({ connection: clientConnection, namespace: config.TEMPORAL_NAMESPACE });
  try {
    await assertSearchAttributes(clientConnection, { address: options.temporalAddress, namespace: config.TEMPORAL_NAMESPACE });
  } catch (error) {
    await clientConnection.close();
    throw error;
  }
  let grid: BrowserGrid | undefined;
  let created: Awaited<ReturnType<typeof createWorker>>;
  const identities = SourceIdentities.fromConfig(config, logger.child({ component: 'source-identities' }));
  const parser = createPageParser(config.PARSE_THREADS, (err) => logger.error({ err }, 'a parse thread failed between parses; it is replaced'), config.READ_NICE);
  let connection = options.connection;
  const closeConnection = async () => { if (!options.connection) await connection?.close(); };
  try {
    connection ??= await connectTemporal(options.temporalAddress, logger);
    grid = await BrowserGrid.fromConfig(config, logger.child({ component: 'browser-grid' }));
    created = await createWorker({
      config,
      connection,
      deps: {
        db: options.db, source: grid, identities, sourceAttempts: config.SOURCE_ATTEMPTS, logger, parser,
        ...(options.completions && { completions: options.completions }),
        webhookSchedule: { retryDelaysMs: config.WEBHOOK_RETRY_DELAYS, timeoutMs: config.WEBHOOK_TIMEOUT },
        webhooks: {
          allowlist: config.WEBHOOK_ALLOWLIST, ports: config.WEBHOOK_PORTS,
          accountSlots: config.WEBHOOK_ACCOUNT_SLOTS, resolve: options.webhookResolver,
        },
        workflows: temporalTaskLauncher(client, config), liveBudgetMs: config.LIVE_BUDGET, retentionDays: config.RETENTION_DAYS, observationRetentionDays: config.OBSERVATION_RETENTION_DAYS,
      },
    });
  } catch (error) {
    await grid?.close();
    await identities.close();
    await parser.close();
    await closeConnection();
    await clientConnection.close();
    throw error;
  }
  const { worker, pageReader, webhookSender } = created;
  const running = Promise.all([worker.run(), pageReader.run(), webhookSender.run()]);
  running.catch((error) => logger.error({ err: error }, 'worker stopped with an error'));
  await ensureMaintenanceSchedules(client, config).catch((error: unknown) => logger.error({ err: error }, 'could not register the maintenance schedules'));
  let stopping: Promise<void> | undefined;
  return {
    worker,
    grid,
    connection,
    stop() {
      stopping ??= (async () => {
        for (const w of [pageReader, webhookSender, worker]) if (w.getState() === 'RUNNING') w.shutdown();
        await running.catch(() => undefined);
        await closeConnection();
        await clientConnection.close();
        await grid.close();
        await identities.close();
        await parser.close();
      })();
      return stopping;
    },
  };
}

/**
 * The standalone worker process: the /metrics listener on `config.WORKER_METRICS_PORT` (none when
 * 0; Bearer METRICS_TOKEN required when set; bound first, so a taken port fails before any browser starts), then `startWorker`.
 * `stop()` drains the worker, then closes the listener.
 * @throws when the metrics port cannot be bound or the worker cannot start (the listener is closed).
 */
export async function startStandaloneWorker(options: Parameters<typeof startWorker>[0]): Promise<RunningWorker & { metrics: MetricsServer | null }> {
  const port = options.config.WORKER_METRICS_PORT;
  const metrics = port > 0
    ? await startMetricsServer({ port, token: options.config.METRICS_TOKEN, logger: options.logger.child({ component: 'worker-metrics' }) })
    : null;
  let running: RunningWorker;
  try {
    running = await startWorker(options);
  } catch (error) {
    await metrics?.stop();
    throw error;
  }
  return {
    ...running,
    metrics,
    async stop() {
      await running.stop();
      await metrics?.stop();
    },
  };
}

if (isMainModule(import.meta.url)) await runStandalone('worker', startStandaloneWorker);
