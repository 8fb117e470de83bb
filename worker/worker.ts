/**
 * Creating the Temporal worker: workflows from `workflows/index` (bundled by the SDK), activities
 * from `createActivities(deps)`.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../core/logger.js';
import type { Config } from '../core/config.js';
import { createActivities, type ActivityDeps } from './activities/index.js';

/** The workflows entry: the TypeScript source under tsx/vitest, the compiled file under dist/. */
export function workflowsPath(): string {
  const ts = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
  return fs.existsSync(ts) ? ts : fileURLToPath(new URL('../workflows/index.js', import.meta.url));
}

let runtimeInstalled = false;

/**
 * Routes the Temporal SDK's own logs into pino at the configured level (once per process;
 * the SDK allows installing its runtime only before first use).
 */
export function installTemporalLogging(logger: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const level = (['trace', 'debug', 'info', 'warn', 'error'].includes(logger.level) ? logger.level.toUpperCase() : 'ERROR') as LogLevel;
  const log = logger.child({ component: 'temporal-sdk' });
  try {
    Runtime.install({
      logger: new DefaultLogger(level, (entry) => {
        const method = entry.level === 'TRACE' ? 'trace' : entry.level === 'DEBUG' ? 'debug' : entry.level === 'INFO' ? 'info' : entry.level === 'WARN' ? 'warn' : 'error';
        log[method](entry.meta ?? {}, entry.message);
      }),
    });
  } catch {
    /* the runtime already exists (e.g. a test created it first): keep its logger */
  }
}

/**
 * Creates (does not run) a worker polling `config.TEMPORAL_TASK_QUEUE`.
 * Concurrent source reads are bounded by the browser grid; the activity slots here only cap
 * how many wait for it.
 */
export async function createWorker(options: { config: Config; address: string; deps: ActivityDeps }): Promise<{ worker: Worker; connection: NativeConnection }> {
  installTemporalLogging(options.deps.logger);
  const connection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection,
    namespace: options.config.TEMPORAL_NAMESPACE,
    taskQueue: options.config.TEMPORAL_TASK_QUEUE,
    workflowsPath: workflowsPath(),
    activities: createActivities(options.deps),
    maxConcurrentActivityTaskExecutions: 50,
  });
  return { worker, connection };
}
