/**
 * Observations generated in SQL for the benchmarks: `source` is a SELECT yielding rows in the
 * wide layout before version 2 (id, asin, marketplace, observed_at, status, url, title, byline,
 * variant, variants, price_amount, price_currency, bsr, bsr_rank, rating, ratings_count,
 * image_url, details, parser_version, subscription_id), converted and stored by the migration's
 * own conversion (core/db/observation-backfill.ts): content versions and texts once, then the rows.
 */
import type { Db } from '../core/db/db.js';
import { legacyConversion } from '../core/db/observation-backfill.js';

/** The legacy columns a generated source must yield, with defaults for those a benchmark leaves out. */
export function legacyColumns(given: Record<string, string>): string {
  const defaults: Record<string, string> = {
    id: `nextval('observations_id_seq')`, title: 'NULL::text', byline: `'[]'::jsonb`, variant: 'NULL::text', variants: `'[]'::jsonb`,
    price_amount: 'NULL::numeric', price_currency: 'NULL::text', bsr: 'NULL::jsonb', bsr_rank: 'NULL::int', rating: 'NULL::numeric',
    ratings_count: 'NULL::int', image_url: 'NULL::text', details: `'{}'::jsonb`, parser_version: `'bench-1'`, subscription_id: 'NULL::int',
  };
  const all = { ...defaults, ...given };
  return Object.entries(all).map(([column, expr]) => `${expr} AS ${column}`).join(', ');
}

/** Stores the rows of `source` (see the module comment) in one transaction, without the service's statement timeout; returns how many. */
export async function storeGenerated(db: Db, source: string): Promise<number> {
  const { docs, rows } = legacyConversion(source);
  return db.prisma.$transaction(async (tx) => {
    // Generating a million rows outlasts the statement timeout the service sets for requests.
    await tx.$executeRawUnsafe('SET LOCAL statement_timeout = 0');
    await tx.$executeRawUnsafe(docs);
    return tx.$executeRawUnsafe(rows);
  }, { maxWait: 60_000, timeout: 60 * 60_000 });
}
