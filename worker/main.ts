/**
 * The worker process: Temporal worker with the browser grid and the database.
 * `startWorker` is used by `npm start` in-process; running this file starts a standalone worker
 * (production: `node dist/worker/main.js`), which also serves its own Prometheus /metrics on
 * WORKER_METRICS_PORT (`startStandaloneWorker`).
 */
import type { Worker } from '@temporalio/worker';
import type { Config } from '../core/config.js';
import type { PrismaClient } from '../core/db/prisma.js';
import type { Logger } from '../core/logger.js';
import type { HostResolver } from '../core/webhooks/pinned-request.js';
import { isMainModule, runStandalone } from '../core/standalone.js';
import { BrowserGrid } from './browser/browser-grid.js';
import { startMetricsServer, type MetricsServer } from './metrics-server.js';
import { createWorker } from './worker.js';

/** A running worker; `stop()` drains in-flight activities, then closes the browsers. */
export interface RunningWorker {
  worker: Worker;
  grid: BrowserGrid;
  stop(): Promise<void>;
}

/** `webhookResolver` replaces the system resolver of webhook deliveries (tests). */
export async function startWorker(options: { config: Config; prisma: PrismaClient; temporalAddress: string; logger: Logger; webhookResolver?: HostResolver }): Promise<RunningWorker> {
  const logger = options.logger.child({ component: 'worker' });
  const grid = await BrowserGrid.fromConfig(options.config, logger.child({ component: 'browser-grid' }));
  const { worker, pageReader, webhookSender, connection } = await createWorker({
    config: options.config,
    address: options.temporalAddress,
    deps: {
      prisma: options.prisma, source: grid, logger,
      webhooks: {
        allowlist: options.config.WEBHOOK_ALLOWLIST, ports: options.config.WEBHOOK_PORTS,
        accountSlots: options.config.WEBHOOK_ACCOUNT_SLOTS, resolve: options.webhookResolver,
      },
    },
  });
  const running = Promise.all([worker.run(), pageReader.run(), webhookSender.run()]);
  running.catch((error) => logger.error({ err: error }, 'worker stopped with an error'));
  let stopping: Promise<void> | undefined;
  return {
    worker,
    grid,
    stop() {
      stopping ??= (async () => {
        for (const w of [pageReader, webhookSender, worker]) if (w.getState() === 'RUNNING') w.shutdown();
        await running.catch(() => undefined);
        await connection.close();
        await grid.close();
      })();
      return stopping;
    },
  };
}

/**
 * The standalone worker process: the /metrics listener on `config.WORKER_METRICS_PORT` (none when
 * 0; bound first, so a taken port fails before any browser starts), then `startWorker`.
 * `stop()` drains the worker, then closes the listener.
 * @throws when the metrics port cannot be bound or the worker cannot start (the listener is closed).
 */
export async function startStandaloneWorker(options: Parameters<typeof startWorker>[0]): Promise<RunningWorker & { metrics: MetricsServer | null }> {
  const port = options.config.WORKER_METRICS_PORT;
  const metrics = port > 0 ? await startMetricsServer({ port, logger: options.logger.child({ component: 'worker-metrics' }) }) : null;
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
