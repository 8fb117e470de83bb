/**
 * The API process: serves `buildApp(deps)` on PORT. `startApiServer` is used by `npm start`
 * (in-process with the worker); running this file starts a standalone API process
 * (production: `node dist/api/server.js` with DATABASE_URL and TEMPORAL_ADDRESS).
 */
import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { buildApp, type AppDeps } from './app.js';
import { temporalTaskLauncher } from './services/task-launcher.js';
import type { Config } from '../core/config.js';
import type { PrismaClient } from '../core/db/prisma.js';
import type { Logger } from '../core/logger.js';

/** A listening API: its base URL and an idempotent `stop()` that drains open requests. */
export interface ApiServer {
  url: string;
  server: Server;
  stop(): Promise<void>;
}

/** Connects the Temporal client, builds the app and listens on `config.PORT` (0 → any free port). */
export async function startApiServer(options: { config: Config; prisma: PrismaClient; temporalAddress: string; logger: Logger }): Promise<ApiServer> {
  const connection = await Connection.connect({ address: options.temporalAddress });
  const client = new Client({ connection, namespace: options.config.TEMPORAL_NAMESPACE });
  const deps: AppDeps = { config: options.config, prisma: options.prisma, logger: options.logger, launcher: temporalTaskLauncher(client, options.config) };
  const app = buildApp(deps);
  const server = app.listen(options.config.PORT, '0.0.0.0');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.config.PORT;
  let stopping: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    stop() {
      stopping ??= (async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await connection.close();
      })();
      return stopping;
    },
  };
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  const { loadConfig } = await import('../core/config.js');
  const { createLogger } = await import('../core/logger.js');
  const { openDatabase } = await import('../core/db/database.js');
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
    logger.fatal('a standalone API needs DATABASE_URL and TEMPORAL_ADDRESS (use `npm start` for the embedded defaults)');
    process.exit(1);
  }
  const db = await openDatabase(config);
  const api = await startApiServer({ config, prisma: db.prisma, temporalAddress: config.TEMPORAL_ADDRESS, logger });
  logger.info({ url: api.url }, 'api listening');
  const shutdown = async () => {
    await api.stop();
    await db.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}
