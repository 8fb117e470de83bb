/**
 * The standalone API process (production: `node dist/api/main.js`), with DATABASE_URL and
 * TEMPORAL_ADDRESS configured; `npm start` runs the API in-process instead.
 */
import { loadConfig } from '../core/config.js';
import { openDatabase } from '../core/db/database.js';
import { createLogger } from '../core/logger.js';
import { startApiServer } from './server.js';

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
