/**
 * Where the tests find outside things: the shared fixtures beside the repository and the real
 * PostgreSQL of production-mode tests (DATABASE_URL_TEST, default 127.0.0.1:5432/test).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const sharedPagesDir = path.resolve(repoRoot, '../shared/fixtures/pages');
export const hasSharedPages = fs.existsSync(path.join(sharedPagesDir, 'MANIFEST.tsv'));
export const syntheticReplayDir = path.join(repoRoot, 'test/fixtures/replay');

/** Base URL of the real PostgreSQL used by production-mode tests. */
export const postgresBaseUrl = process.env.DATABASE_URL_TEST ?? 'postgresql://postgres@127.0.0.1:5432/test';

/** Creates a fresh, empty database on the real PostgreSQL and returns its URL and a dropper. */
export async function createScratchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `rda_test_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: postgresBaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresBaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: postgresBaseUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
