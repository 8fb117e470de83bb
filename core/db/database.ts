/**
 * Opens the service's database: `DATABASE_URL` when configured, otherwise the embedded PGlite
 * server in `DATA_DIR`; applies pending migrations when asked.
 */
import type { Config } from '../config.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.js';
import { applyMigrations } from './migrator.js';
import { createDb, type Db } from './db.js';

/** An open database: its URL and `Db`, whose `close()` also stops an embedded server. */
export interface Database extends Db {
  url: string;
  embedded: boolean;
}

/**
 * Opens the database of `config`, its pool bounded by DATABASE_POOL_MAX / DATABASE_POOL_TIMEOUT and
 * its statements by DATABASE_STATEMENT_TIMEOUT / DATABASE_IDLE_TRANSACTION_TIMEOUT (core/config.ts).
 * @param options.migrate apply pending migrations first (npm start does; the API alone does not).
 */
export async function openDatabase(config: Config, options: { migrate?: boolean } = {}): Promise<Database> {
  let embedded: EmbeddedPostgres | undefined;
  const url = config.DATABASE_URL ?? (embedded = await startEmbeddedPostgres(config.DATA_DIR)).url;
  try {
    if (options.migrate) await applyMigrations(url);
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  // PGlite ignores statement_timeout (it cannot cancel a running statement): only the wait applies.
  const db = embedded
    ? createDb(url, 1, { poolTimeoutMs: config.DATABASE_POOL_TIMEOUT })
    : createDb(url, config.DATABASE_POOL_MAX, {
      poolTimeoutMs: config.DATABASE_POOL_TIMEOUT,
      statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT,
      idleTransactionTimeoutMs: config.DATABASE_IDLE_TRANSACTION_TIMEOUT,
    });
  return {
    ...db,
    url,
    embedded: Boolean(embedded),
    async close() {
      await db.close();
      await embedded?.stop();
    },
  };
}
