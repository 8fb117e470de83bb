/**
 * `npm run db:migrate`: applies pending migrations to DATABASE_URL (or the embedded database).
 * Prints the applied names as JSON.
 */
import { loadConfig } from '../core/config.js';
import { startEmbeddedPostgres } from '../core/db/embedded-postgres.js';
import { applyMigrations } from '../core/db/migrator.js';

const config = loadConfig();
const embedded = config.DATABASE_URL ? undefined : await startEmbeddedPostgres(config.DATA_DIR);
try {
  const applied = await applyMigrations(config.DATABASE_URL ?? embedded!.url);
  console.log(JSON.stringify({ applied }));
} finally {
  await embedded?.stop();
}
