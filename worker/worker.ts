/**
 * Creating the Temporal worker: workflows from `workflows/index` (bundled by the SDK), activities
 * from `createActivities(deps)`.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../core/config.js';
import { createActivities, type ActivityDeps } from './activities/index.js';

/** The workflows entry: the TypeScript source under tsx/vitest, the compiled file under dist/. */
export function workflowsPath(): string {
  const ts = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
  return fs.existsSync(ts) ? ts : fileURLToPath(new URL('../workflows/index.js', import.meta.url));
}

/**
 * Creates (does not run) a worker polling `config.TEMPORAL_TASK_QUEUE`.
 * Concurrent source reads are bounded by the browser grid; the activity slots here only cap
 * how many wait for it.
 */
export async function createWorker(options: { config: Config; address: string; deps: ActivityDeps }): Promise<{ worker: Worker; connection: NativeConnection }> {
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
