/**
 * The Prisma client (Prisma 7 `prisma-client` generator) over `@prisma/adapter-pg`.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../prisma/generated/client/client.js';

export { PrismaClient };
export type { Prisma } from '../../prisma/generated/client/client.js';

/**
 * Creates a Prisma client for `url`. `maxConnections` bounds the pg pool (1 for the embedded
 * PGlite server, which is a single session).
 */
export function createPrisma(url: string, maxConnections = 10): PrismaClient {
  const adapter = new PrismaPg({ connectionString: url, max: maxConnections });
  return new PrismaClient({ adapter });
}

/** Adapts a Prisma client to the migrator's `Queryable`, so readiness checks reuse the pool. */
export function prismaQueryable(prisma: PrismaClient) {
  return {
    async query<R extends object = Record<string, unknown>>(sql: string, params: unknown[] = []) {
      return { rows: (await prisma.$queryRawUnsafe(sql, ...params)) as R[] };
    },
  };
}
