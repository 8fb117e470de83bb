/**
 * The project's migrator keeps Prisma Migrate's `_prisma_migrations` table as Prisma does, on
 * PGlite and on PostgreSQL.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../core/db/embedded-postgres.js';
import { MIGRATIONS_DIR, applyMigrations, listMigrations, pendingMigrations } from '../../core/db/migrator.js';
import { createScratchDatabase } from '../support/env.js';

async function check(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const all = listMigrations().map((m) => m.name);
    expect(await pendingMigrations(client)).toEqual(all);
    expect(await applyMigrations(url)).toEqual(all);
    expect(await applyMigrations(url)).toEqual([]);
    expect(await pendingMigrations(client)).toEqual([]);
    const rows = await client.query('SELECT * FROM "_prisma_migrations" ORDER BY migration_name');
    expect(rows.rows.map((r) => r.migration_name)).toEqual(all);
    for (const row of rows.rows) {
      const sql = fs.readFileSync(path.join(MIGRATIONS_DIR, row.migration_name, 'migration.sql'));
      expect(row.checksum).toBe(createHash('sha256').update(sql).digest('hex'));
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
    // Partitions of `observations` are listed apart: their names follow the calendar.
    const tables = await client.query(`SELECT table_name FROM information_schema.tables t WHERE table_schema = 'public'
      AND NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.relname = t.table_name AND c.relispartition) ORDER BY 1`);
    expect(tables.rows.map((r) => r.table_name)).toEqual([
      '_prisma_migrations', 'access_requests', 'accounts', 'alert_rules', 'api_keys', 'batch_rows', 'batches', 'idempotency_keys', 'ledger_entries', 'observation_texts', 'observations', 'product_contents', 'rate_limits', 'search_items', 'search_observations', 'source_reads', 'subscriptions', 'tasks', 'usage_counters', 'webhook_deliveries', 'webhook_events',
    ]);
    const month = (offset: number) => {
      const d = new Date();
      d.setUTCDate(1);
      d.setUTCMonth(d.getUTCMonth() + offset);
      return `observations_${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
    };
    const partitions = await client.query(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'observations'::regclass ORDER BY 1`);
    expect(partitions.rows.map((r) => r.relname)).toEqual([month(0), month(1), month(2), month(3), 'observations_default']);
    await expect(client.query(`INSERT INTO accounts (login, email, webhook_secret, balance) VALUES ('neg', 'n@x', 's', -1)`)).rejects.toThrow(/balance_non_negative/);
  } finally {
    await client.end();
  }
}

describe('migrator', () => {
  it('applies every migration once and records it as Prisma does (PGlite)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-mig-'));
    const db = await startEmbeddedPostgres(dir);
    try {
      await check(db.url);
    } finally {
      await db.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('applies every migration once and records it as Prisma does (PostgreSQL)', async () => {
    const db = await createScratchDatabase();
    try {
      await check(db.url);
    } finally {
      await db.drop();
    }
  });

  it('refuses a second PGlite on a directory whose owner is alive', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-lock-'));
    fs.writeFileSync(path.join(dir, 'pglite.pid'), String(process.ppid));
    await expect(startEmbeddedPostgres(dir)).rejects.toThrow(/belongs to process/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
