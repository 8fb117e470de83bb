/**
 * Opens the service's database: `DATABASE_URL` when configured, otherwise the embedded PGlite
 * server in `DATA_DIR`; applies pending migrations when asked.
 */
import type { Config } from '../config.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.js';
import { applyMigrations } from './migrator.js';
import { createPrisma, type PrismaClient } from './prisma.js';

/** An open database: the URL, a Prisma client and a `close()` that also stops an embedded server. */
export interface Database {
  url: string;
  embedded: boolean;
  prisma: PrismaClient;
  close(): Promise<void>;
}

/**
 * Opens the database of `config`.
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
  const prisma = createPrisma(url, embedded ? 1 : 10);
  return {
    url,
    embedded: Boolean(embedded),
    prisma,
    async close() {
      await prisma.$disconnect();
      await embedded?.stop();
    },
  };
}
