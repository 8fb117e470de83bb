/**
 * The thread that builds the workflow bundle (worker/workflow-bundle.ts). Bundling loads webpack and
 * its compiler into the heap that runs it, and they stay loaded after the build; built here, they
 * end with the thread instead of enlarging every later full collection of the service's main heap.
 *
 * Input (`workerData`): `WorkflowBundleThreadData`. Output: one `WorkflowBundleThreadAnswer`
 * message; a failed build ends the thread with the bundler's error (the owner's `error` event).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { bundleWorkflowCode, type LogLevel, type LogMetadata } from '@temporalio/worker';

/** What the owner passes as `workerData`. */
export interface WorkflowBundleThreadData {
  /** The workflows entry module (worker/worker.ts `workflowsPath`). */
  workflowsPath: string;
}

/** One line the bundler logged, handed to the owner's logger. */
export interface BundlerLogEntry {
  level: LogLevel;
  message: string;
  meta?: LogMetadata;
}

/** The thread's one message: the bundle's JavaScript and what the bundler logged while building it. */
export interface WorkflowBundleThreadAnswer {
  code: string;
  log: BundlerLogEntry[];
}

const { workflowsPath } = workerData as WorkflowBundleThreadData;
const log: BundlerLogEntry[] = [];
const keep = (level: LogLevel) => (message: string, meta?: LogMetadata) => {
  // Metadata crosses to the owner by structured clone: keep only what survives JSON.
  let plain: LogMetadata | undefined;
  try {
    plain = meta === undefined ? undefined : (JSON.parse(JSON.stringify(meta)) as LogMetadata);
  } catch {
    plain = undefined;
  }
  log.push({ level, message, ...(plain !== undefined && { meta: plain }) });
};
const bundle = await bundleWorkflowCode({
  workflowsPath,
  logger: {
    log: (level, message, meta) => keep(level)(message, meta),
    trace: keep('TRACE'),
    debug: keep('DEBUG'),
    info: keep('INFO'),
    warn: keep('WARN'),
    error: keep('ERROR'),
  },
});
parentPort?.postMessage({ code: bundle.code, log } satisfies WorkflowBundleThreadAnswer);
