/**
 * The Prisma client (Prisma 7 `prisma-client` generator) over `@prisma/adapter-pg`.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../../prisma/generated/client/client.js';

export { PrismaClient };
export type { Prisma } from '../../prisma/generated/client/client.js';

const pools = new WeakMap<PrismaClient, pg.Pool>();

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
 * Creates a Prisma client for `url`. `maxConnections` bounds the pg pool (1 for the embedded
 * PGlite server, which is a single session). The pool is the client's own (`$disconnect` ends it)
 * and is shared with the hot paths' prepared SQL through `pgPoolOf` (core/db/sql.ts), so PGlite
 * still sees one connection. `limits`: see `PoolLimits` (openDatabase passes the configured ones).
 */
export function createPrisma(url: string, maxConnections = 10, limits: PoolLimits = {}): PrismaClient {
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
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(prisma, pool);
  return prisma;
}

/** The pg pool under a client made by `createPrisma`; undefined for any other client. */
export function pgPoolOf(prisma: PrismaClient): pg.Pool | undefined {
  return pools.get(prisma);
}

/** Adapts a Prisma client to the migrator's `Queryable`, so readiness checks reuse the pool. */
export function prismaQueryable(prisma: PrismaClient) {
  return {
    async query<R extends object = Record<string, unknown>>(sql: string, params: unknown[] = []) {
      return { rows: (await prisma.$queryRawUnsafe(sql, ...params)) as R[] };
    },
  };
}
