/**
 * The thread that owns the embedded database (core/db/embedded-postgres.ts): PGlite and the socket
 * server that speaks the PostgreSQL wire protocol for it. PGlite runs each query synchronously
 * inside WebAssembly; on its own thread those queries no longer hold up the event loop of the
 * process that serves the API and runs the Temporal worker, and they run beside it on another core.
 *
 * Messages from the owner: `'stop'` (close the server and the database, answer `stopped`).
 * Messages to the owner: `ready`, `memory` (WASM bytes, at start and every MEMORY_REPORT_MS), `stopped`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** What the owner passes as `workerData`. */
export interface EmbeddedPostgresThreadData {
  /** PGlite's data directory. */
  dbDir: string;
  /** Unix socket the server listens on. */
  socketPath: string;
}

/** What the thread posts to its owner. */
export type EmbeddedPostgresThreadMessage =
  | { type: 'ready' }
  | { type: 'memory'; bytes: number | undefined }
  | { type: 'stopped' };

/** How often the thread reports PGlite's WASM memory for the gauge (ms). */
const MEMORY_REPORT_MS = 5_000;

/**
 * Bytes of PGlite's WASM linear memory, or undefined when it cannot be read. PGlite keeps its
 * Emscripten module in a protected field (`mod`), read here as the memory gauge's only source.
 */
function pgliteWasmBytes(db: PGlite): number | undefined {
  const mod = (db as unknown as { mod?: { wasmMemory?: WebAssembly.Memory; HEAP8?: Int8Array } }).mod;
  return mod?.wasmMemory?.buffer.byteLength ?? mod?.HEAP8?.buffer.byteLength;
}

const port = parentPort;
if (!port) throw new Error('embedded-postgres-thread runs only as a worker thread');
const post = (message: EmbeddedPostgresThreadMessage) => port.postMessage(message);
const { dbDir, socketPath } = workerData as EmbeddedPostgresThreadData;

const db = await PGlite.create({ dataDir: dbDir });
const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 4 });
await server.start();
const report = () => post({ type: 'memory', bytes: pgliteWasmBytes(db) });
report();
const reporting = setInterval(report, MEMORY_REPORT_MS);
port.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(reporting);
  void (async () => {
    await server.stop();
    await db.close();
    post({ type: 'stopped' });
    port.close();
  })();
});
post({ type: 'ready' });
