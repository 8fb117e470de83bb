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
import pg from 'pg';
import { trackEmbeddedDatabaseMemory } from '../metrics.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when a PostgreSQL server answers at `url` within 2 s. */
async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Bytes of PGlite's WASM linear memory, or undefined when it cannot be read. PGlite keeps its
 * Emscripten module in a protected field (`mod`), read here as the memory gauge's only source.
 */
function pgliteWasmBytes(db: PGlite): number | undefined {
  const mod = (db as unknown as { mod?: { wasmMemory?: WebAssembly.Memory; HEAP8?: Int8Array } }).mod;
  return mod?.wasmMemory?.buffer.byteLength ?? mod?.HEAP8?.buffer.byteLength;
}

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
  const url = `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}`;
  // Another process of this service (e.g. `npm start` while the admin CLI runs) already serves
  // this data directory: PGlite allows one process per directory, so talk to that server.
  if (fs.existsSync(socketPath) && (await answers(url))) return { url, stop: async () => undefined };
  // Two PGlite instances on one directory would corrupt it: refuse while the owner is alive.
  const pidFile = path.join(dataDir, 'pglite.pid');
  const owner = Number(fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8') : NaN);
  if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
    throw new Error(`the embedded database in ${dbDir} belongs to process ${owner}, which does not answer on ${socketPath}`);
  }
  fs.writeFileSync(pidFile, String(process.pid));
  fs.rmSync(socketPath, { force: true });
  const db = await PGlite.create({ dataDir: dbDir });
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 4 });
  await server.start();
  const untrack = trackEmbeddedDatabaseMemory(() => pgliteWasmBytes(db));
  let stopped = false;
  return {
    url,
    async stop() {
      if (stopped) return;
      stopped = true;
      untrack();
      await server.stop();
      await db.close();
      fs.rmSync(socketPath, { force: true });
      fs.rmSync(pidFile, { force: true });
    },
  };
}
