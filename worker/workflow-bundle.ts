/**
 * The workflow bundle the Temporal worker runs (`Worker.create({ workflowBundle })`), built on a
 * thread of its own (worker/workflow-bundle-thread.ts) rather than by the SDK on the main thread,
 * and built once per process for a given workflows entry.
 */
import { Worker as Thread } from 'node:worker_threads';
import type { WorkflowBundle } from '@temporalio/worker';
import type { Logger } from '../core/logger.js';
import { threadEntry } from '../core/thread-entry.js';
import { logTemporalEntry } from './temporal-log.js';
import type { WorkflowBundleThreadAnswer, WorkflowBundleThreadData } from './workflow-bundle-thread.js';

const built = new Map<string, Promise<WorkflowBundle>>();

/**
 * The bundle of the workflows entry `workflowsPath` (worker/worker.ts `workflowsPath`). The first
 * call builds it on a new thread, which ends when the bundle is handed over; later calls in the
 * same process get the same bundle. What the bundler logged goes to `logger` at its own level.
 * @throws the bundler's error (a workflow module that does not compile or imports a module
 *   workflows may not use); a failed build is not kept, so the next call tries again.
 */
export function workflowBundle(workflowsPath: string, logger: Logger): Promise<WorkflowBundle> {
  let bundle = built.get(workflowsPath);
  if (!bundle) {
    bundle = buildOnThread(workflowsPath, logger);
    built.set(workflowsPath, bundle);
    bundle.catch(() => built.delete(workflowsPath));
  }
  return bundle;
}

function buildOnThread(workflowsPath: string, logger: Logger): Promise<WorkflowBundle> {
  const { filename, execArgv } = threadEntry(import.meta.url, 'workflow-bundle-thread');
  const workerData: WorkflowBundleThreadData = { workflowsPath };
  const log = logger.child({ component: 'workflow-bundler' });
  return new Promise((resolve, reject) => {
    const thread = new Thread(new URL(filename), { execArgv, workerData });
    let answer: WorkflowBundleThreadAnswer | undefined;
    thread.once('message', (message: WorkflowBundleThreadAnswer) => { answer = message; });
    thread.once('error', reject);
    thread.once('exit', (exitCode) => {
      if (!answer) {
        reject(new Error(`the workflow bundle thread exited (code ${exitCode}) without a bundle`));
        return;
      }
      for (const entry of answer.log) logTemporalEntry(log, entry.level, entry.message, entry.meta);
      resolve({ code: answer.code });
    });
  });
}
