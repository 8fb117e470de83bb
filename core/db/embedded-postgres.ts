/**
 * The embedded default database: PGlite (PostgreSQL compiled to WASM) persisted in
 * `DATA_DIR/pglite` and served over the PostgreSQL wire protocol on a local Unix socket,
 * so the application talks to it exactly as to a real server (operations-contract.md).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { trackEmbeddedDatabaseMemory } from '../metrics.js';
import { threadEntry } from '../thread-entry.js';
import type { EmbeddedPostgresThreadData, EmbeddedPostgresThreadMessage } from './embedded-postgres-thread.js';

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

/** A running embedded database. `url` is a `postgresql://` URL for `pg`/Prisma. */
export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts PGlite on `<dataDir>/pglite` and serves it on a Unix socket, both on a thread of their own
 * (core/db/embedded-postgres-thread.ts) so that queries run beside the caller's event loop.
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
  const data: EmbeddedPostgresThreadData = { dbDir, socketPath };
  const { filename, execArgv } = threadEntry(import.meta.url, 'embedded-postgres-thread');
  const thread = new Worker(new URL(filename), { execArgv, workerData: data });
  let wasmBytes: number | undefined;
  let stopped: (() => void) | undefined;
  thread.on('message', (message: EmbeddedPostgresThreadMessage) => {
    if (message.type === 'memory') wasmBytes = message.bytes;
    if (message.type === 'stopped') stopped?.();
  });
  try {
    await new Promise<void>((resolve, reject) => {
      thread.on('message', (message: EmbeddedPostgresThreadMessage) => { if (message.type === 'ready') resolve(); });
      thread.once('error', reject);
      thread.once('exit', (code) => reject(new Error(`the embedded database thread exited at start (code ${code})`)));
    });
  } catch (error) {
    await thread.terminate();
    fs.rmSync(pidFile, { force: true });
    throw error;
  }
  // From here on the thread failing is the database failing: its `error` event, unheard, ends the
  // process, as an exception inside PGlite on the caller's thread would.
  thread.removeAllListeners('error').removeAllListeners('exit');
  const untrack = trackEmbeddedDatabaseMemory(() => wasmBytes);
  let stopping: Promise<void> | undefined;
  return {
    url,
    stop() {
      stopping ??= (async () => {
        untrack();
        await new Promise<void>((resolve, reject) => {
          stopped = resolve;
          thread.once('error', reject);
          thread.once('exit', () => resolve());
          thread.postMessage('stop');
        });
        await thread.terminate();
        fs.rmSync(socketPath, { force: true });
        fs.rmSync(pidFile, { force: true });
      })();
      return stopping;
    },
  };
}
