/**
 * Starting and signalling `monitorSubscription` workflows (workflowId `monitor:<id>`) from the API
 * and the admin CLI (Temporal client).
 */
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import pLimit from 'p-limit';
import type { Config } from '../../core/config.js';
import { startLabels, subscriptionAttributes, subscriptionSummary } from '../../core/domain/operator-view.js';
import { firstReadOffset } from '../../core/domain/scheduling.js';
import { STATUS } from '../../core/domain/status-codes.js';
import {
  MONITOR_CONFIGURE_SIGNAL,
  MONITOR_RESUME_SIGNAL,
  MONITOR_STOP_SIGNAL,
  monitorWorkflowId,
  type Frequency,
  type MonitorSettings,
  type MonitorSubscriptionInput,
} from '../../core/domain/subscription-messages.js';

/** A subscription whose monitor should run with these settings. */
export interface MonitorTarget {
  subscriptionId: number;
  /** The product of a product subscription ('' for a keyword subscription). */
  asin: string;
  /** Keyword subscriptions: the keyword and the results pages of each run. */
  search?: { keyword: string; pages: number };
  marketplace: string;
  frequency: Frequency;
  /** Start paused (only used when the workflow is not running yet). */
  paused: boolean;
  /** The subscription's account and tag: the monitor's search attributes and summary. */
  accountId?: number;
  tag?: string | null;
}

/** What the API and the admin CLI need of Temporal for monitoring. */
export interface MonitorLauncher {
  /**
   * Starts a new subscription's monitor, whose first read falls `firstReadOffset` into the first
   * interval. It starts at once (not delayed to its first read) so that its state query answers
   * from the moment the subscription exists; until the read it waits on a durable timer, out of
   * the worker's cache. Idempotent (an existing monitor is kept). Rejects when Temporal refuses.
   */
  start(target: MonitorTarget): Promise<void>;
  /**
   * Hands an existing subscription's monitor its (possibly new) frequency, which applies at once;
   * signal-with-start, so a monitor that is missing for any reason is started again. Rejects when
   * Temporal refuses.
   */
  configure(target: MonitorTarget): Promise<void>;
  /** Tells the monitors that their subscriptions were resumed (best effort, never rejects). */
  resume(subscriptionIds: number[]): Promise<void>;
  /** Ends the subscription's monitor (ignored when it is not running). */
  stop(subscriptionId: number): Promise<void>;
}

/** Signals sent at once by `resume`: 10,000 subscriptions resume without flooding the frontend. */
const SIGNAL_CONCURRENCY = 32;

/**
 * The Temporal implementation. `options.continueAsNewAfter` lowers the monitors' continue-as-new
 * threshold (tests); `options.onError` receives signalling failures `resume` swallows.
 */
export function temporalMonitorLauncher(
  client: Client,
  config: Config,
  options: { continueAsNewAfter?: number; onError?: (error: unknown, subscriptionId: number) => void } = {},
): MonitorLauncher {
  const handle = (id: number) => client.workflow.getHandle(monitorWorkflowId(id));
  const inputOf = ({ accountId: _accountId, tag: _tag, ...target }: MonitorTarget, firstReadAt?: number): MonitorSubscriptionInput => ({
    ...target,
    intervalMs: config.MONITORING_INTERVALS[target.frequency],
    readAttempts: config.SOURCE_READ_ATTEMPTS,
    retryInitialMs: 1_000,
    ...(firstReadAt === undefined ? {} : { firstReadAt }),
    ...(options.continueAsNewAfter ? { continueAsNewAfter: options.continueAsNewAfter } : {}),
  });
  /** The operators' view of a monitor: search attributes and summary (core/domain/operator-view.ts). */
  const labels = (target: MonitorTarget) => startLabels(subscriptionAttributes(target, STATUS.PAYMENT_REQUIRED), subscriptionSummary(target));
  return {
    async start(target) {
      const delayMs = firstReadOffset(target.subscriptionId, config.MONITORING_INTERVALS[target.frequency]);
      await client.workflow.start('monitorSubscription', {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: monitorWorkflowId(target.subscriptionId),
        args: [inputOf(target, Date.now() + delayMs)],
        ...labels(target),
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
    },
    async configure(target) {
      const intervalMs = config.MONITORING_INTERVALS[target.frequency];
      await client.workflow.signalWithStart('monitorSubscription', {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: monitorWorkflowId(target.subscriptionId),
        args: [inputOf(target)],
        ...labels(target),
        signal: MONITOR_CONFIGURE_SIGNAL,
        signalArgs: [{
          frequency: target.frequency, intervalMs, ...(target.tag === undefined ? {} : { tag: target.tag }), ...(target.search ? { pages: target.search.pages } : {}),
        } satisfies MonitorSettings],
      });
    },
    async resume(subscriptionIds) {
      const limit = pLimit(SIGNAL_CONCURRENCY);
      await Promise.all(subscriptionIds.map((id) => limit(async () => {
        try {
          await handle(id).signal(MONITOR_RESUME_SIGNAL);
        } catch (error) {
          // The monitor re-checks the database every interval, so a lost signal only delays it.
          if (!(error instanceof WorkflowNotFoundError)) options.onError?.(error, id);
        }
      })));
    },
    async stop(subscriptionId) {
      try {
        await handle(subscriptionId).signal(MONITOR_STOP_SIGNAL);
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
    },
  };
}

/**
 * Connects a launcher for a one-off command (the admin CLI): to `address`, giving up after
 * `timeoutMs`. @returns the launcher and a `close()`, or null when Temporal does not answer.
 */
export async function connectMonitorLauncher(
  config: Config,
  address: string,
  options: { timeoutMs?: number; onError?: (error: unknown, subscriptionId: number) => void } = {},
): Promise<{ launcher: MonitorLauncher; close(): Promise<void> } | null> {
  let connection: Connection;
  try {
    connection = await Connection.connect({ address, connectTimeout: options.timeoutMs ?? 3_000 });
  } catch {
    return null;
  }
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  return { launcher: temporalMonitorLauncher(client, config, { onError: options.onError }), close: () => connection.close() };
}
