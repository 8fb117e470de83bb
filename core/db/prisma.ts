/**
 * The Prisma client (Prisma 7 `prisma-client` generator) over `@prisma/adapter-pg`, and the `pg`
 * pool under it. Services receive both through a `Db` (core/db/db.ts), never a bare client.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../../prisma/generated/client/client.js';

export { PrismaClient };
export type { Prisma } from '../../prisma/generated/client/client.js';

/**
 * Time limits of a pool's connections, in ms (0 or absent: none). `poolTimeoutMs`: longest wait
 * for a free connection or a new one to open (pg-pool `connectionTimeoutMillis`; then
 * "timeout exceeded when trying to connect"). `statementTimeoutMs` / `idleTransactionTimeoutMs`:
 * PostgreSQL's `statement_timeout` (SQLSTATE 57014) and `idle_in_transaction_session_timeout`
 * (25P03), set at connection start. core/db/faults.ts turns those failures into answers.
 */
export interface PoolLimits {
  poolTimeoutMs?: number;
  statementTimeoutMs?: number;
  idleTransactionTimeoutMs?: number;
}

/**
 * A Prisma client for `url` over a pg pool of its own: `maxConnections` bounds the pool (1 for the
 * embedded PGlite server, which is a single session); `$disconnect` ends the pool. `limits`: see
 * `PoolLimits` (openDatabase passes the configured ones). createDb (core/db/db.ts) shares the pool
 * with the hot paths' prepared SQL, so PGlite still sees one connection.
 */
export function createPrismaWithPool(url: string, maxConnections = 10, limits: PoolLimits = {}): { prisma: PrismaClient; pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: url,
    max: maxConnections,
    ...(limits.poolTimeoutMs && { connectionTimeoutMillis: limits.poolTimeoutMs }),
    ...(limits.statementTimeoutMs && { statement_timeout: limits.statementTimeoutMs }),
    ...(limits.idleTransactionTimeoutMs && { idle_in_transaction_session_timeout: limits.idleTransactionTimeoutMs }),
  });
  // An idle connection that breaks is dropped by the pool and replaced on the next query; the
  // listener keeps its 'error' event from crashing the process (the adapter only logs it to debug).
  pool.on('error', () => undefined);
  return { prisma: new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) }), pool };
}

/** Adapts a Prisma client to the migrator's `Queryable`, so readiness checks reuse the pool. */
export function prismaQueryable(prisma: PrismaClient) {
  return {
    async query<R extends object = Record<string, unknown>>(sql: string, params: unknown[] = []) {
      return { rows: (await prisma.$queryRawUnsafe(sql, ...params)) as R[] };
    },
  };
}
