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
 * Creates a Prisma client for `url`. `maxConnections` bounds the pg pool (1 for the embedded
 * PGlite server, which is a single session). The pool is the client's own (`$disconnect` ends it)
 * and is shared with the hot paths' prepared SQL through `pgPoolOf` (core/db/sql.ts), so PGlite
 * still sees one connection.
 */
export function createPrisma(url: string, maxConnections = 10): PrismaClient {
  const pool = new pg.Pool({ connectionString: url, max: maxConnections });
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
