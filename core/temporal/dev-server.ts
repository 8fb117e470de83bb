/**
 * The embedded Temporal: the CLI dev server (`temporal server start-dev`) with its SQLite file in
 * DATA_DIR and the Web UI on 8233 (operations-contract.md).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import getPort from 'get-port';
import { findTemporalCli } from './cli.js';
import { devServerSearchAttributeArgs, registerSearchAttributes } from './search-attributes.js';
import { devServerDynamicConfigArgs } from './server-config.js';

/** A running dev server. `address` is `host:port` of the frontend; `uiUrl` the Web UI, if enabled. */
export interface TemporalDevServer {
  address: string;
  uiUrl: string | null;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  /** SQLite file; omitted → in-memory (tests). */
  dbFile?: string;
  /**
   * Frontend port; omitted → any free port, and another one if the server cannot bind it (another
   * process may take a free port between the check and the bind).
   */
  port?: number;
  /** Web UI port; `false` disables the UI. Default 8233 if free, else any free port. */
  uiPort?: number | false;
  namespace?: string;
  cliPath?: string;
  /** Where the server's output goes; default DATA_DIR-less: discarded. */
  logFile?: string;
  /**
   * Register the custom search attributes (core/domain/operator-view.ts), default true; false
   * starts a server without them (the worker's refusal is tested on one).
   */
  searchAttributes?: boolean;
}

/**
 * Starts the dev server and waits until its frontend answers (up to 60 s).
 * @throws when the CLI is missing or the server does not come up.
 */
export async function startTemporalDevServer(options: DevServerOptions = {}): Promise<TemporalDevServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options, options.port ?? (await getPort()));
    } catch (error) {
      if (!(error instanceof ExitedAtStartError) || options.port !== undefined || attempt >= 3) throw error;
    }
  }
}

/** The dev server exited before it answered (typically: its port was taken meanwhile). */
class ExitedAtStartError extends Error {}

async function startOnce(options: DevServerOptions, port: number): Promise<TemporalDevServer> {
  const cli = findTemporalCli(options.cliPath);
  const uiPort = options.uiPort === false ? undefined : (options.uiPort ?? (await getPort({ port: 8233 })));
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--namespace', options.namespace ?? 'default', '--log-level', 'warn'];
  // Priority, fairness and eager start as on every server of the service (server-config.ts).
  args.push(...devServerDynamicConfigArgs());
  if (options.dbFile) {
    fs.mkdirSync(path.dirname(options.dbFile), { recursive: true });
    // WAL with synchronous=NORMAL: one fsync per checkpoint instead of per commit. Committed
    // history survives a crash of any process; only a power loss may drop the last commits.
    // Without it every workflow start or task completion waits for a disk sync (adding 10,000
    // monitoring subscriptions took minutes instead of seconds).
    args.push('--db-filename', options.dbFile, '--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal');
  }
  // Registered when the server creates its database; on a database an older version made, the
  // flags are ignored and the missing attributes are added once the server answers (below).
  const withAttributes = options.searchAttributes ?? true;
  if (withAttributes) args.push(...devServerSearchAttributeArgs());
  if (uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(uiPort));
  let output: number | 'ignore' = 'ignore';
  if (options.logFile) {
    fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
    output = fs.openSync(options.logFile, 'a');
  }
  const child: ChildProcess = spawn(cli, args, { stdio: ['ignore', output, output] });
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => child.once('exit', () => { exited = true; resolve(); }));
  const address = `127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new ExitedAtStartError(`temporal dev server exited at start (${cli} ${args.join(' ')})${options.logFile ? `; see ${options.logFile}` : ''}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      if (exited) continue; // what answered was another process's server on the same port
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`temporal dev server did not answer on ${address} within 60 s`, { cause: error });
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  if (withAttributes) {
    const connection = await Connection.connect({ address });
    try {
      await registerSearchAttributes(connection, options.namespace ?? 'default');
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    } finally {
      await connection.close();
    }
  }
  return {
    address,
    uiUrl: uiPort === undefined ? null : `http://127.0.0.1:${uiPort}`,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exitPromise;
      clearTimeout(timer);
    },
  };
}
