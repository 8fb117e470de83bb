/**
 * `Db`: the database handle every service, repository, route, GraphQL context, activity and admin
 * command receives (docs/architecture.md "Persistence"). It is made once per process and database
 * (`openDatabase` in core/db/database.ts, or `createDb` / `dbOf` here) and holds what belongs to
 * that database: the Prisma client, the pg pool under it, the hot paths' prepared-SQL runner on
 * that pool, and the process's usage meter.
 */
import type pg from 'pg';
import { createPrismaWithPool, type PoolLimits, type PrismaClient } from './prisma.js';
import { createSql, type Sql } from './sql.js';
import { UsageMeter } from './usage-meter.js';

/** An open database of this process. */
export interface Db {
  /** Everything that is not a hot path goes through Prisma. */
  prisma: PrismaClient;
  /** The hot paths' SQL (prepared statements on `pool`; through `prisma` when there is no pool). */
  sql: Sql;
  /** The pg pool under `prisma`; undefined for a client made elsewhere (`dbOf` without a pool). */
  pool: pg.Pool | undefined;
  /** Usage counted in this process, not yet written (core/usage.ts). */
  usage: UsageMeter;
  /**
   * Ids of rows of append-only tables (observation content versions and texts) this process has
   * stored or found, by a hash of their document (core/observations.ts `insertObservation`).
   */
  knownIds: Map<string, string | number>;
  /** Disconnects Prisma and ends the pool. Usage still pending is not written: flush it first. */
  close(): Promise<void>;
}

/**
 * A `Db` over an existing Prisma client and, when known, the pg pool under it (tests wrap
 * clients they built themselves: statement counters, fault injection).
 */
export function dbOf(prisma: PrismaClient, pool?: pg.Pool): Db {
  const sql = createSql(prisma, pool);
  return { prisma, sql, pool, usage: new UsageMeter(sql), knownIds: new Map(), close: () => prisma.$disconnect() };
}

/**
 * Opens a `Db` on `url`: a pg pool of `maxConnections` (1 for the embedded PGlite server, a
 * single session) with `limits`, and a Prisma client over it.
 */
export function createDb(url: string, maxConnections = 10, limits: PoolLimits = {}): Db {
  const { prisma, pool } = createPrismaWithPool(url, maxConnections, limits);
  return dbOf(prisma, pool);
}
