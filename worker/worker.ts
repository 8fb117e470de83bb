/**
 * Creating the Temporal worker: workflows from `workflows/index` (bundled by the SDK), activities
 * from `createActivities(deps)`.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../core/logger.js';
import type { Config } from '../core/config.js';
import { pageReadQueue, webhookQueue } from '../core/domain/queues.js';
import { createActivities, type ActivityDeps } from './activities/index.js';

/** The workflows entry: the TypeScript source under tsx/vitest, the compiled file under dist/. */
export function workflowsPath(): string {
  const ts = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
  return fs.existsSync(ts) ? ts : fileURLToPath(new URL('../workflows/index.js', import.meta.url));
}

/** Sticky-cache size: workflows kept in worker memory between their tasks. */
export const MAX_CACHED_WORKFLOWS = 300;

let runtimeInstalled = false;

/**
 * Routes the Temporal SDK's own logs into pino at the configured level, and leaves signals to the
 * process (once per process; the SDK allows installing its runtime only before first use).
 *
 * The SDK's runtime would otherwise shut every worker down on SIGINT, SIGTERM, SIGQUIT and SIGUSR2
 * (its `shutdownSignals` default): on SIGUSR2 (a heap snapshot asked with `--heapsnapshot-signal`,
 * nodemon) or SIGQUIT the process would stay up, its API accepting tasks that no worker reads. The
 * service's own handlers (scripts/start.ts, core/standalone.ts) stop the whole stack on SIGINT and
 * SIGTERM, the workers first.
 */
export function installTemporalLogging(logger: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const level = (['trace', 'debug', 'info', 'warn', 'error'].includes(logger.level) ? logger.level.toUpperCase() : 'ERROR') as LogLevel;
  const log = logger.child({ component: 'temporal-sdk' });
  try {
    Runtime.install({
      shutdownSignals: [],
      logger: new DefaultLogger(level, (entry) => {
        const method = entry.level === 'TRACE' ? 'trace' : entry.level === 'DEBUG' ? 'debug' : entry.level === 'INFO' ? 'info' : entry.level === 'WARN' ? 'warn' : 'error';
        log[method](entry.meta ?? {}, entry.message);
      }),
    });
  } catch {
    /* the runtime already exists (e.g. a test created it first): keep its logger */
  }
}

/** Time a read or delivery under way is given, beyond its own limit, to finish at shutdown, ms. */
const READ_DRAIN_MARGIN_MS = 15_000;

/**
 * The worker's connection to Temporal (`address` is `host:port`), with the SDK's logs routed into
 * `logger` first. A `Client` built on it may ask for eager workflow starts
 * (core/temporal/task-launcher.ts `eagerStart`): the server then hands a started workflow's first
 * task back in the start's answer, and the SDK gives it to a worker of this process polling that
 * task queue on this connection, instead of the worker polling it from the server's matching.
 * @throws when the server does not answer.
 */
export async function connectTemporal(address: string, logger: Logger): Promise<NativeConnection> {
  installTemporalLogging(logger);
  return NativeConnection.connect({ address });
}

/**
 * Creates (does not run) the workers on `connection` (`connectTemporal`; the caller closes it):
 * one polling `config.TEMPORAL_TASK_QUEUE` for workflows and bookkeeping activities; one polling its page-read queue with one slot per browser page, so a
 * backlog of reads waits in Temporal rather than timing out inside the worker; and one polling its
 * webhook queue with WEBHOOK_SLOTS slots, so receivers that answer slowly never hold the slots of
 * monitoring runs and task bookkeeping.
 */
export async function createWorker(options: { config: Config; connection: NativeConnection; deps: ActivityDeps }): Promise<{ worker: Worker; pageReader: Worker; webhookSender: Worker }> {
  const { connection } = options;
  const activities = createActivities(options.deps);
  // Page reads (product and search results pages): exactly as many slots as the browser grid has pages (BROWSER_MAX_PAGES per browser).
  const pageSlots = options.config.BROWSER_MAX_PAGES * Math.max(1, options.config.BROWSER_WS_ENDPOINTS.length);
  const pageReader = await Worker.create({
    connection,
    namespace: options.config.TEMPORAL_NAMESPACE,
    taskQueue: pageReadQueue(options.config.TEMPORAL_TASK_QUEUE),
    // Product and search pages share the browser grid's slots.
    activities: { readProductPage: activities.readProductPage, readSearchPage: activities.readSearchPage },
    maxConcurrentActivityTaskExecutions: pageSlots,
    // Graceful shutdown drains: a read under way may finish (navigation limit + parse and store)
    // before it is cancelled, so a SIGTERM does not cost a task one of its read attempts.
    shutdownGraceTime: options.config.BROWSER_NAV_TIMEOUT + READ_DRAIN_MARGIN_MS,
  });
  const webhookSender = await Worker.create({
    connection,
    namespace: options.config.TEMPORAL_NAMESPACE,
    taskQueue: webhookQueue(options.config.TEMPORAL_TASK_QUEUE),
    activities: { deliverWebhook: activities.deliverWebhook },
    maxConcurrentActivityTaskExecutions: options.config.WEBHOOK_SLOTS,
    // Attempts in flight finish (or time out) before the worker exits.
    shutdownGraceTime: options.config.WEBHOOK_TIMEOUT + READ_DRAIN_MARGIN_MS,
  });
  const worker = await Worker.create({
    connection,
    namespace: options.config.TEMPORAL_NAMESPACE,
    taskQueue: options.config.TEMPORAL_TASK_QUEUE,
    workflowsPath: workflowsPath(),
    // Every activity, `deliverWebhook` included for attempts scheduled here by deliveries that
    // started before webhooks had their own queue.
    activities,
    maxConcurrentActivityTaskExecutions: 50,
    // Bookkeeping in flight finishes before the worker exits.
    shutdownGraceTime: options.config.WEBHOOK_TIMEOUT + READ_DRAIN_MARGIN_MS,
    // Monitors idle on timers for hours: keep only recently active workflows in memory and replay
    // the others from history when their timer fires (bounded memory with 10,000+ monitors).
    maxCachedWorkflows: MAX_CACHED_WORKFLOWS,
  });
  return { worker, pageReader, webhookSender };
}
