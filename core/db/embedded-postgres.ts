/**
 * The embedded default database: PGlite (PostgreSQL compiled to WASM) persisted in
 * `DATA_DIR/pglite` and served over the PostgreSQL wire protocol on a local Unix socket,
 * so the application talks to it exactly as to a real server (operations-contract.md).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** A running embedded database. `url` is a `postgresql://` URL for `pg`/Prisma. */
export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts PGlite on `<dataDir>/pglite` and serves it on a Unix socket.
 * PGlite is a single session: the socket server runs one query at a time across connections, so
 * a transaction is only isolated when one connection is used. The service therefore uses a pool of
 * one connection (see `openDatabase`); the extra slots only absorb short-lived clients such as the
 * migrator closing while the pool connects.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const dbDir = path.join(dataDir, 'pglite');
  fs.mkdirSync(dbDir, { recursive: true });
  // Unix socket paths are limited to ~107 bytes; fall back to a short directory under tmp.
  let socketDir = dataDir;
  if (path.join(socketDir, '.s.PGSQL.5432').length > 100) {
    socketDir = path.join(os.tmpdir(), `rda-${createHash('sha1').update(dataDir).digest('hex').slice(0, 12)}`);
    fs.mkdirSync(socketDir, { recursive: true });
  }
  const socketPath = path.join(socketDir, '.s.PGSQL.5432');
  fs.rmSync(socketPath, { force: true });
  const db = await PGlite.create({ dataDir: dbDir });
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 4 });
  await server.start();
  const url = `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}`;
  let stopped = false;
  return {
    url,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      await db.close();
      fs.rmSync(socketPath, { force: true });
    },
  };
}
