/**
 * The API process: serves `buildApp(deps)` on PORT, and /metrics on METRICS_LISTEN when set (see
 * core/metrics.ts for where /metrics is served). `startApiServer` is used by `npm start`
 * (in-process with the worker); running this file starts a standalone API process
 * (production: `node dist/api/server.js` with DATABASE_URL and TEMPORAL_ADDRESS).
 */
import type { Server } from 'node:http';
import { Client, Connection, type ConnectionLike } from '@temporalio/client';
import { buildApp, type AppDeps } from './app.js';
import { temporalMonitorLauncher } from './services/monitor-launcher.js';
import { temporalTaskLauncher } from './services/task-launcher.js';
import { temporalWebhookLauncher } from '../core/temporal/webhook-launcher.js';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/db.js';
import type { Logger } from '../core/logger.js';
import type { TaskCompletions } from '../core/task-completions.js';
import { startMetricsServer } from '../core/metrics-server.js';
import { flushUsage } from '../core/usage.js';
import { isMainModule, runStandalone } from '../core/standalone.js';

/** A listening API: its base URL and an idempotent `stop()` that drains open requests. */
export interface ApiServer {
  url: string;
  /** Base URL of the METRICS_LISTEN listener (`<metricsUrl>/metrics`); null when there is none. */
  metricsUrl: string | null;
  server: Server;
  stop(): Promise<void>;
}

/**
 * Connects the Temporal client, builds the app and listens on `config.PORT` (0 → any free port).
 * `workerConnection`: the connection a worker of this process polls on (`npm start`,
 * scripts/stack.ts); the client uses it instead of a connection of its own, leaves it open at
 * `stop()`, and starts task workflows eagerly (core/temporal/task-launcher.ts `eagerStart`).
 * Without it (a standalone API), the client connects to `temporalAddress` and starts normally.
 */
export async function startApiServer(options: { config: Config; db: Db; temporalAddress: string; logger: Logger; workerConnection?: ConnectionLike; completions?: TaskCompletions }): Promise<ApiServer> {
  const shared = options.workerConnection;
  const connection = shared ?? (await Connection.connect({ address: options.temporalAddress }));
  const closeConnection = async () => { if (!shared) await connection.close(); };
  const client = new Client({ connection, namespace: options.config.TEMPORAL_NAMESPACE });
  const deps: AppDeps = {
    config: options.config, db: options.db, logger: options.logger, launcher: temporalTaskLauncher(client, options.config, { eagerStart: shared !== undefined, ...(options.completions && { completions: options.completions }) }),
    monitors: temporalMonitorLauncher(client, options.config, { onError: (err, subscriptionId) => options.logger.warn({ err, subscriptionId }, 'could not signal the monitor') }),
    webhookLauncher: temporalWebhookLauncher(client, options.config),
  };
  const app = buildApp(deps);
  const listen = options.config.METRICS_LISTEN;
  let metrics: Awaited<ReturnType<typeof startMetricsServer>> | null = null;
  const server = app.listen(options.config.PORT, '0.0.0.0');
  try {
    if (listen) metrics = await startMetricsServer({ ...listen, token: options.config.METRICS_TOKEN, logger: options.logger.child({ component: 'api-metrics' }) });
    await new Promise<void>((resolve, reject) => {
      if (server.listening) resolve();
      else server.once('listening', resolve).once('error', reject);
    });
  } catch (error) {
    server.close();
    await metrics?.stop();
    await closeConnection();
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.config.PORT;
  let stopping: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    metricsUrl: metrics?.url ?? null,
    server,
    stop() {
      stopping ??= (async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await metrics?.stop();
        // Usage counted in memory (core/usage.ts) is written before the database closes.
        await flushUsage(options.db).catch((err: unknown) => options.logger.error({ err }, 'could not write usage counters at shutdown'));
        await closeConnection();
      })();
      return stopping;
    },
  };
}

if (isMainModule(import.meta.url)) await runStandalone('api', startApiServer);
