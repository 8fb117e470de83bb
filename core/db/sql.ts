/**
 * SQL of the API's hot paths (authentication, rate limiting, task_get, tasks_ready, live, the
 * usage flush) sent straight through `pg` on the pool under the Prisma client (`Db.sql`, made by
 * `createSql`), without the Prisma runtime: each statement costs ≈ 0.1 ms of CPU instead of ≈ 0.5–1.5 ms
 * (BENCHMARKS.md "What limits the missed targets"). On PostgreSQL each statement is prepared once
 * per connection (named); on PGlite every connection shares one session, where a named statement
 * would collide with the same name from another connection, so statements stay unnamed there.
 * Without a pool (a client not made by `createDb`), or once the pool has ended, the same SQL runs
 * through `$queryRawUnsafe`.
 *
 * Value types: int4 → number, text / varchar / uuid → string, boolean, timestamptz → Date,
 * json / jsonb → parsed. Cast int8 and numeric to text in the SQL: pg returns them as strings,
 * Prisma as BigInt / Decimal (the fallback turns uncast ones into numbers and strings).
 */
import type pg from 'pg';
import type { PrismaClient } from './prisma.js';

/** One SQL statement; `name` identifies its prepared form and must be unique per text. */
export interface Statement {
  name: string;
  text: string;
}

/** What a statement returned: its rows and the number of rows it returned or changed. */
export interface SqlResult<R> {
  rows: R[];
  rowCount: number;
}

/** Runs statements with positional parameters (`$1`, `$2`, ...). */
export interface Sql {
  /** @throws the driver's error (pg `DatabaseError` with its SQLSTATE `code`) */
  query<R = Record<string, unknown>>(statement: Statement, values?: readonly unknown[]): Promise<SqlResult<R>>;
}

/** Prisma's BigInt and Decimal values as pg would return them for the same column. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value !== null && typeof value === 'object' && (value as { constructor?: { name?: string } }).constructor?.name === 'Decimal') return String(value);
  return value;
}

async function viaPrisma<R>(prisma: PrismaClient, statement: Statement, values: readonly unknown[]): Promise<SqlResult<R>> {
  const rows = await prisma.$queryRawUnsafe<Record<string, unknown>[]>(statement.text, ...values);
  const out = rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v)])) as R);
  return { rows: out, rowCount: out.length };
}

/**
 * The hot-path SQL runner over `pool` (see the module comment), falling back to `prisma` when
 * there is no pool or it has ended. Whether the pool talks to PGlite (one shared session, so no
 * named statements) is found on the first statement, then known.
 */
export function createSql(prisma: PrismaClient, pool: pg.Pool | undefined): Sql {
  let embedded: boolean | Promise<boolean> | undefined;
  const isEmbedded = (live: pg.Pool): boolean | Promise<boolean> => {
    if (embedded === undefined) {
      const finding = live.query<{ version: string }>('SELECT version() AS version').then((r) => /PGlite/i.test(r.rows[0]?.version ?? ''));
      finding.then((value) => { embedded = value; }, () => { embedded = undefined; });
      embedded = finding;
    }
    return embedded;
  };
  return {
    async query<R>(statement: Statement, values: readonly unknown[] = []): Promise<SqlResult<R>> {
      if (!pool || pool.ended) return viaPrisma<R>(prisma, statement, values);
      let pglite = isEmbedded(pool);
      if (typeof pglite !== 'boolean') pglite = await pglite;
      const result = await pool.query({ ...(!pglite && { name: statement.name }), text: statement.text, values: values as unknown[] });
      return { rows: result.rows as R[], rowCount: result.rowCount ?? result.rows.length };
    },
  };
}
