/**
 * Scratch databases on a real PostgreSQL server, for the tests and the benchmarks that run the
 * service in production mode: each creates its own empty database and drops it afterwards.
 * The server is DATABASE_URL_TEST (default postgresql://postgres@127.0.0.1:5432/test), a
 * development setting the service itself never reads.
 */
import pg from 'pg';

/** Base URL of the real PostgreSQL on which scratch databases are created. */
export const postgresBaseUrl = process.env.DATABASE_URL_TEST ?? 'postgresql://postgres@127.0.0.1:5432/test';

/** A scratch database: its connection URL, and `drop()`, which removes it even with sessions still open. */
export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * Creates a fresh, empty database (`rda_test_<ms>_<random>`) on the server at `postgresBaseUrl`.
 * @throws the driver's error when the server is not reachable or refuses CREATE DATABASE.
 */
export async function createScratchDatabase(): Promise<ScratchDatabase> {
  const name = `rda_test_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: postgresBaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresBaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: postgresBaseUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
