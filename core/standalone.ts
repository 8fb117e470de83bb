/**
 * Running one production process (API or worker) against configured services: parses config,
 * opens the database, starts the part, and stops it gracefully on SIGINT/SIGTERM.
 */
import { loadConfig, type Config } from './config.js';
import { openDatabase } from './db/database.js';
import { createLogger, type Logger } from './logger.js';
import type { Db } from './db/db.js';

/** What a standalone part receives. */
export interface StandaloneContext {
  config: Config;
  /** The process's database, opened once (core/db/db.ts). */
  db: Db;
  temporalAddress: string;
  logger: Logger;
}

/** True when `moduleUrl` (`import.meta.url`) is the file Node was asked to run. */
export function isMainModule(moduleUrl: string): boolean {
  return moduleUrl === `file://${process.argv[1]}`;
}

/**
 * Runs `start` as a standalone process. Production processes need DATABASE_URL and
 * TEMPORAL_ADDRESS (the embedded defaults belong to `npm start`); exits 1 without them, and when
 * `start` throws (logged at fatal level with its message).
 */
export async function runStandalone(name: string, start: (ctx: StandaloneContext) => Promise<{ stop(): Promise<void> }>): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL).child({ process: name });
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
    logger.fatal(`a standalone ${name} needs DATABASE_URL and TEMPORAL_ADDRESS (use \`npm start\` for the embedded defaults)`);
    process.exit(1);
  }
  const db = await openDatabase(config);
  let part: { stop(): Promise<void> };
  try {
    part = await start({ config, db, temporalAddress: config.TEMPORAL_ADDRESS, logger });
  } catch (error) {
    // A refusal at start (e.g. the worker's missing search attributes) is logged with its message, whole.
    logger.fatal({ err: error }, `${name} could not start: ${(error as Error).message}`);
    await db.close();
    process.exit(1);
  }
  logger.info(`${name} running`);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${name} stopping`);
    await part.stop();
    await db.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}
