/**
 * The worker process: Temporal worker with the browser grid and the database.
 * `startWorker` is used by `npm start` in-process; running this file starts a standalone worker
 * (production: `node dist/worker/main.js`).
 */
import type { Worker } from '@temporalio/worker';
import type { Config } from '../core/config.js';
import type { PrismaClient } from '../core/db/prisma.js';
import type { Logger } from '../core/logger.js';
import type { HostResolver } from '../core/webhooks/pinned-request.js';
import { isMainModule, runStandalone } from '../core/standalone.js';
import { BrowserGrid } from './browser/browser-grid.js';
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
  const { worker, pageReader, connection } = await createWorker({
    config: options.config,
    address: options.temporalAddress,
    deps: { prisma: options.prisma, source: grid, logger, webhooks: { allowlist: options.config.WEBHOOK_ALLOWLIST, resolve: options.webhookResolver } },
  });
  const running = Promise.all([worker.run(), pageReader.run()]);
  running.catch((error) => logger.error({ err: error }, 'worker stopped with an error'));
  let stopping: Promise<void> | undefined;
  return {
    worker,
    grid,
    stop() {
      stopping ??= (async () => {
        for (const w of [pageReader, worker]) if (w.getState() === 'RUNNING') w.shutdown();
        await running.catch(() => undefined);
        await connection.close();
        await grid.close();
      })();
      return stopping;
    },
  };
}

if (isMainModule(import.meta.url)) await runStandalone('worker', startWorker);
