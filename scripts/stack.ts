/**
 * The whole service in one process on embedded defaults (operations-contract.md): database
 * (DATABASE_URL or PGlite), Temporal (TEMPORAL_ADDRESS or the CLI dev server), the worker with its
 * browser grid, and the API. Used by `npm start` and by the end-to-end tests.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../core/config.js';
import { openDatabase, type Database } from '../core/db/database.js';
import type { Logger } from '../core/logger.js';
import { TaskCompletions } from '../core/task-completions.js';
import type { HostResolver } from '../core/webhooks/pinned-request.js';
import { devServerAddressFile } from '../core/temporal/address.js';
import { startTemporalDevServer, type TemporalDevServer } from '../core/temporal/dev-server.js';
import { startApiServer, type ApiServer } from '../api/server.js';
import { startWorker, type RunningWorker } from '../worker/main.js';
import { connectTemporal } from '../worker/worker.js';

export interface Stack {
  config: Config;
  db: Database;
  api: ApiServer;
  worker: RunningWorker;
  temporalAddress: string;
  /** Temporal Web UI of the embedded dev server, when one was started with a UI. */
  temporalUiUrl: string | null;
  stop(): Promise<void>;
}

export interface StackOptions {
  /**
   * Frontend port of the embedded Temporal dev server; omitted → any free port (so stacks started
   * side by side, as test files are, never race for one port). `npm start` asks for 7233 if free.
   */
  temporalPort?: number;
  /** Web UI port of the embedded Temporal dev server; `false` disables it. Default 8233 if free. */
  temporalUiPort?: number | false;
  /** Keep the embedded Temporal history in DATA_DIR (default true; tests use memory). */
  persistTemporal?: boolean;
  /** Host name resolution of webhook deliveries (default the system resolver; tests map names). */
  webhookResolver?: HostResolver;
}

/** Starts every part; on failure stops what was already started, then rethrows. */
export async function startStack(config: Config, logger: Logger, options: StackOptions = {}): Promise<Stack> {
  const started: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of started.reverse()) await stop().catch((error) => logger.error({ err: error }, 'stop failed'));
  };
  try {
    const db: Database = await openDatabase(config, { migrate: true });
    started.push(() => db.close());
    let devServer: TemporalDevServer | undefined;
    if (!config.TEMPORAL_ADDRESS) {
      devServer = await startTemporalDevServer({
        dbFile: options.persistTemporal === false ? undefined : path.join(config.DATA_DIR, 'temporal.db'),
        port: options.temporalPort,
        uiPort: options.temporalUiPort,
        namespace: config.TEMPORAL_NAMESPACE,
        cliPath: config.TEMPORAL_CLI_PATH,
        logFile: path.join(config.DATA_DIR, 'temporal.log'),
      });
      started.push(() => devServer!.stop());
      // One-off commands (the admin CLI's top-up resumes monitors) find the dev server here.
      const addressFile = devServerAddressFile(config.DATA_DIR);
      fs.writeFileSync(addressFile, devServer.address);
      started.push(async () => fs.rmSync(addressFile, { force: true }));
    }
    const temporalAddress = config.TEMPORAL_ADDRESS ?? devServer!.address;
    // One connection for the worker and the API's client: the SDK's native gRPC client, which
    // does the calls' network work off the service's JavaScript thread, and on which a task the
    // API starts may be handed to this worker in the start's answer (eager start) when it has a
    // free workflow task slot. It outlives the worker (a benchmark stops the worker first).
    const connection = await connectTemporal(temporalAddress, logger.child({ component: 'worker' }));
    started.push(() => connection.close());
    // The worker tells the API of this process when a read completed a task (a live read answers then).
    const completions = new TaskCompletions();
    const worker = await startWorker({ config, db, temporalAddress, logger, webhookResolver: options.webhookResolver, connection, completions });
    started.push(() => worker.stop());
    const api = await startApiServer({ config, db, temporalAddress, logger, workerConnection: connection, completions });
    started.push(() => api.stop());
    let stopping: Promise<void> | undefined;
    return {
      config, db, api, worker, temporalAddress, temporalUiUrl: devServer?.uiUrl ?? null,
      stop: () => (stopping ??= stopAll()),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
