/**
 * The embedded database as its users meet it: PGlite on a thread of its own behind a Unix socket.
 * A long query leaves the caller's event loop free (the API and the worker share that loop under
 * `npm start`); data outlives a stop and a start on the same directory; stop leaves neither the
 * socket nor the directory's owner file behind.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../core/db/embedded-postgres.js';

const dirs: string[] = [];
const running: EmbeddedPostgres[] = [];

async function start(dir?: string): Promise<{ db: EmbeddedPostgres; dir: string }> {
  const dataDir = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'rda-embedded-'));
  if (!dir) dirs.push(dataDir);
  const db = await startEmbeddedPostgres(dataDir);
  running.push(db);
  return { db, dir: dataDir };
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

afterEach(async () => {
  for (const db of running.splice(0)) await db.stop();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('embedded database (PGlite on its own thread)', () => {
  it('keeps the caller\'s event loop turning while it runs a long query', async () => {
    const { db } = await start();
    let last = performance.now();
    let longestGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    const rows = await query<{ n: string }>(db.url, 'SELECT count(*) AS n FROM generate_series(1, 20000) a, generate_series(1, 1000) b WHERE (a * b) % 7 = 3');
    const queryMs = performance.now() - started;
    clearInterval(timer);
    expect(Number(rows[0]!.n)).toBeGreaterThan(0);
    // On the caller's thread the loop would stand still for the whole query.
    expect(queryMs).toBeGreaterThan(300);
    expect(longestGap).toBeLessThan(queryMs / 3);
  });

  it('keeps its data across a stop and a start on the same directory, and stop leaves no socket or owner file', async () => {
    const first = await start();
    await query(first.db.url, `CREATE TABLE notes (id int PRIMARY KEY, body text); INSERT INTO notes VALUES (1, 'kept')`);
    const socketDir = new URL(first.db.url).searchParams.get('host')!;
    expect(fs.existsSync(path.join(socketDir, '.s.PGSQL.5432'))).toBe(true);
    await first.db.stop();
    await first.db.stop();
    expect(fs.existsSync(path.join(socketDir, '.s.PGSQL.5432'))).toBe(false);
    expect(fs.existsSync(path.join(first.dir, 'pglite.pid'))).toBe(false);

    const second = await start(first.dir);
    expect(await query<{ body: string }>(second.db.url, 'SELECT body FROM notes WHERE id = 1')).toEqual([{ body: 'kept' }]);
  });
});
