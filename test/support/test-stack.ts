/**
 * The whole service for end-to-end tests: the replay server standing in for the marketplaces
 * (test/support/delayed-replay.ts), then `startStack` (scripts/stack.ts: database, Temporal dev
 * server, worker with Chromium, API) in a temporary DATA_DIR, and a Temporal client of it. API-only
 * tests use `startTestApp` (test/support/test-app.ts) instead.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../../core/config.js';
import { createLogger, type Logger } from '../../core/logger.js';
import { startStack, type Stack, type StackOptions } from '../../scripts/stack.js';
import { startDelayedReplay, type DelayedReplay } from './delayed-replay.js';
import { syntheticReplayDir } from './env.js';

export interface TestStack {
  stack: Stack;
  replay: DelayedReplay;
  dataDir: string;
  /** A Temporal client of the stack's server (closed by `stop`). */
  client: Client;
  /** Stops the stack, the replay server and the database, and removes DATA_DIR. Idempotent. */
  stop(): Promise<void>;
}

export interface TestStackOptions {
  /** Folder of pages the replay server serves (default the synthetic pages of test/fixtures/replay). */
  pages?: string;
  /** Replay paths answered late: path → delay in ms. */
  delays?: Record<string, number>;
  /** Config variables over the defaults (`PORT=0`, `LOG_LEVEL=error`, DATA_DIR, RETAIL_SOURCE_ORIGIN). */
  env?: Record<string, string>;
  /** The database: none → embedded PGlite in DATA_DIR; else a database made for the test, dropped at stop. */
  database?: () => Promise<{ url?: string; drop(): Promise<void> }>;
  /** startStack's options over the test defaults (no Temporal Web UI, Temporal history in memory). */
  stack?: StackOptions;
  /** The service's logger (default level `error` to standard output); e.g. test/support/log-capture.ts. */
  logger?: Logger;
}

/** Starts the replay server and the stack; on failure stops what it started, then rethrows. */
export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const started: (() => Promise<void>)[] = [];
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= (async () => { for (const s of started.splice(0).reverse()) await s(); })());
  try {
    const replay = await startDelayedReplay(options.pages ?? syntheticReplayDir, options.delays);
    started.push(() => replay.close());
    const db = options.database ? await options.database() : undefined;
    if (db) started.push(() => db.drop());
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-stack-'));
    started.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const config = loadConfig({
      DATA_DIR: dataDir, PORT: '0', RETAIL_SOURCE_ORIGIN: replay.url, LOG_LEVEL: 'error',
      ...(db?.url ? { DATABASE_URL: db.url } : {}), ...options.env,
    });
    const stack = await startStack(config, options.logger ?? createLogger('error'), { temporalUiPort: false, persistTemporal: false, ...options.stack });
    started.push(() => stack.stop());
    const connection = await Connection.connect({ address: stack.temporalAddress });
    started.push(() => connection.close());
    return { stack, replay, dataDir, client: new Client({ connection }), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
