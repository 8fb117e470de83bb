/**
 * The monthly partitions of `observations` (range on `observed_at`, UTC months, named
 * `observations_YYYY_MM`, beside the DEFAULT partition `observations_default`): created ahead by
 * the migrator at every start and by the hourly retention run, and dropped past
 * OBSERVATION_RETENTION_DAYS. The work is done by the database functions of migration
 * 20261127100000_observations_partitioned, one statement each, so it is atomic.
 */
/** Anything that runs SQL with `$n` parameters and returns rows (pg client, `prismaQueryable`). */
export interface Queryable {
  query<R extends object = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

/** Months created ahead of the current one. */
export const PARTITION_MONTHS_AHEAD = 3;

/**
 * Creates the partitions of this month and the next `monthsAhead` that are missing, and those of
 * months with rows in the DEFAULT partition (moving the rows in).
 * @returns the partitions created.
 */
export async function ensureObservationPartitions(db: Queryable, monthsAhead = PARTITION_MONTHS_AHEAD): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>('SELECT observation_partitions_ensure($1::int) AS name', [monthsAhead]);
  return rows.map((r) => r.name);
}

/**
 * Drops the monthly partitions whose whole month lies before `cutoff`: their observations leave
 * history, task results and exports at once (no row-by-row delete).
 * @returns the partitions dropped.
 */
export async function dropObservationPartitionsBefore(db: Queryable, cutoff: Date): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>('SELECT observation_partitions_drop_before($1::timestamptz) AS name', [cutoff.toISOString()]);
  return rows.map((r) => r.name);
}

/** The monthly partitions of `observations`, oldest first. */
export async function listObservationPartitions(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT c.relname::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'observations'::regclass AND c.relname <> 'observations_default' ORDER BY 1`,
  );
  return rows.map((r) => r.name);
}
