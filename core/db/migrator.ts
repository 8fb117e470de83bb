/**
 * Applies the SQL migrations of `prisma/migrations/<name>/migration.sql` in name order and keeps
 * Prisma Migrate's `_prisma_migrations` table exactly as Prisma does (checksum = SHA-256 hex of the
 * file), so `prisma migrate deploy` agrees on any database this migrator has touched.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { backfillObservations, type BackfillOptions } from './observation-backfill.js';
import { ensureObservationPartitions } from './observation-partitions.js';

/** The project's migrations folder (SQL is not compiled, so from dist/ it is the source tree's). */
export const MIGRATIONS_DIR = [
  fileURLToPath(new URL('../../prisma/migrations', import.meta.url)),
  fileURLToPath(new URL('../../../prisma/migrations', import.meta.url)),
].find((dir) => fs.existsSync(path.join(dir, 'migration_lock.toml'))) ?? fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

/** The advisory lock key Prisma Migrate uses, so our migrator and Prisma's never run at once. */
const ADVISORY_LOCK_KEY = 72707369;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/** One migration folder. */
export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** Lists the migrations on disk, oldest first. */
export function listMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, 'migration.sql')))
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function appliedNames(client: Queryable): Promise<Set<string>> {
  const exists = await client.query<{ ok: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS ok`);
  if (!exists.rows[0]?.ok) return new Set();
  const rows = await client.query<{ migration_name: string }>(
    `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  return new Set(rows.rows.map((r) => r.migration_name));
}

/**
 * Names of migrations on disk not yet applied to the database behind `db` (GET /ready).
 * @throws when the database cannot be reached.
 */
export async function pendingMigrations(db: Queryable, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  const applied = await appliedNames(db);
  return listMigrations(dir).filter((m) => !applied.has(m.name)).map((m) => m.name);
}

/** Anything that runs SQL with `$n` parameters and returns rows (`pg.Client`, or `prismaQueryable`). */
export interface Queryable {
  query<R extends object = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

/**
 * The data steps after the SQL migrations: the resumable backfill of observations stored in the
 * layout before version 2, then the monthly partitions of observations ahead of time (both no-ops
 * when there is nothing to do, and skipped on a database whose migrations predate them).
 */
async function afterMigrations(client: pg.Client, backfill: BackfillOptions): Promise<void> {
  const has = await client.query<{ ok: boolean }>(`SELECT to_regproc('observation_partitions_ensure') IS NOT NULL AS ok`);
  if (!has.rows[0]?.ok) return;
  await backfillObservations(client, backfill);
  await ensureObservationPartitions(client);
}

/**
 * Applies every pending migration, each in its own transaction, under Prisma's advisory lock, then
 * the data steps (`afterMigrations`; `options.backfill` bounds the backfill's run).
 * @returns the names applied now.
 * @throws on the first failing migration (its row keeps the error in `logs`, as Prisma records it).
 */
export async function applyMigrations(url: string, dir: string = MIGRATIONS_DIR, options: { backfill?: BackfillOptions } = {}): Promise<string[]> {
  return withClient(url, async (client) => {
    await client.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCK_KEY]);
    try {
      await client.query(CREATE_TABLE);
      const applied = await appliedNames(client);
      const done: string[] = [];
      for (const migration of listMigrations(dir)) {
        if (applied.has(migration.name)) continue;
        const id = randomUUID();
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)`,
          [id, migration.checksum, migration.name],
        );
        try {
          await client.query('BEGIN');
          await client.query(migration.sql);
          await client.query(
            `UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`,
            [id],
          );
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          await client.query(`UPDATE "_prisma_migrations" SET logs = $2 WHERE id = $1`, [id, String(error)]);
          throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
        }
        done.push(migration.name);
      }
      await afterMigrations(client, options.backfill ?? {});
      return done;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCK_KEY]);
    }
  });
}
