/**
 * Product tasks (api-spec.md "Task lifecycle"): the `productTask` workflow's input and outcome,
 * the source-read activity's input and result, and the read urgency that orders reads on the
 * page-read queue. Plain data only: workflow history carries ids, never HTML.
 */
import type { RunDelivery } from './subscription-messages.js';
import type { ChangeDeliveries, WebhookPlan } from './webhook-messages.js';

/** Input of the `productTask` workflow (workflowId = task id). */
export interface ProductTaskInput {
  taskId: string;
  asin: string;
  /** Marketplace code (`com`, `de`, ...). */
  marketplace: string;
  /** Attempts of the source read before the task fails with 50301. */
  readAttempts: number;
  /** First retry delay of a failed read, ms. */
  retryInitialMs: number;
  /** For live reads: the whole read must finish within this many ms (api-spec.md: 60 s). */
  budgetMs?: number;
  /** task_post tasks with a postback_url / pingback_url: deliveries to start once the task finishes. */
  webhooks?: WebhookPlan;
}

/**
 * How urgent a product read is: `live` (a caller is waiting), `high` (task_post priority 2) or
 * `normal` (task_post priority 1, monitoring). api-spec.md "task_post": priority 2 is processed
 * before priority 1.
 */
export type ReadUrgency = 'live' | 'high' | 'normal';

/**
 * Temporal priority key of a read (1 = dispatched first; Temporal's default is 3). The key is set
 * on the `productTask` workflow; its activities, the page read included, inherit it, so when the
 * page-read queue has a backlog the matching service hands out live reads first, then priority 2
 * tasks, then priority 1 tasks (Temporal "Task Queue Priority").
 */
export const PRIORITY_KEYS: Record<ReadUrgency, number> = { live: 1, high: 2, normal: 3 };

/** The read urgency of a task_post task from its spec priority (1 or 2). */
export function urgencyOfPriority(priority: number): ReadUrgency {
  return priority === 2 ? 'high' : 'normal';
}

/**
 * How one attempt of a page read ended: with a page (`product`, `search`: a results page, `not_found`), or not: `blocked`
 * (robot check, error or degraded page, an error status), `proxy_error` (the proxy refused,
 * failed, or asked for credentials it did not accept), `unavailable` (timeout, network, the budget).
 */
export type SourceAttemptOutcome = 'product' | 'search' | 'not_found' | 'blocked' | 'proxy_error' | 'unavailable';

/**
 * One attempt of a page read on one identity, for operators (worker log, the activity's result or
 * failure details). Never credentials: the proxy is named `host:port` (`#n` when several entries
 * share it) or `direct`.
 */
export interface SourceAttempt {
  /** The session (proxy + cookie jar + fingerprint) the attempt went out with. */
  session: string;
  proxy: string;
  /** From asking for a page slot to the page's kind or the failure, ms. */
  ms: number;
  outcome: SourceAttemptOutcome;
  /** What blocked or failed it (`robot_check`, `HTTP 503`, `timeout`, `net::ERR_…`); absent on a page. */
  reason?: string;
}

/** What the source-read activity returns: the stored observation's id and its status. */
export interface ReadProductResult {
  /** Stored observation id, as a decimal string (bigint is not JSON). */
  observationId: string;
  status: 'ok' | 'no_bsr' | 'not_found';
  /** Only when the read was given a task id: the task's status code after the read completed it. */
  statusCode?: number;
  /** Only when the read was given a monitoring run: how its observation was paid. */
  delivery?: RunDelivery;
  /** Every attempt of the read, the last one the one that read the page (absent on a run read before). */
  attempts?: SourceAttempt[];
  /** Only when the monitoring run's observation fired alert rules of a subscription with an alert_url: the change events to deliver. */
  changes?: ChangeDeliveries;
}

/** Input of the source-read activity: a task's read, a monitoring run's read, or a plain read. */
export interface ReadProductInput {
  asin: string;
  marketplace: string;
  /** The monitoring subscription the observation is attached to. */
  subscriptionId?: number;
  /** With `subscriptionId`: the reserved monitoring run the read is for (core/monitoring-runs.ts). */
  monitoringRun?: string;
  /** The task the read completes. */
  taskId?: string;
}

/** How a `productTask` workflow ended. */
export interface ProductTaskOutcome {
  taskId: string;
  statusCode: number;
  observationId: string | null;
}

/** A stored search read younger than this answers a task's page without loading it (search-page-contract.md "API": 60 minutes), ms. */
export const SEARCH_REUSE_WINDOW_MS = 60 * 60_000;

/** Input of the `searchTask` workflow (workflowId = task id). */
export interface SearchTaskInput {
  taskId: string;
  /** As posted: trimmed, inner white space collapsed, case kept. */
  keyword: string;
  /** Marketplace code (`com`, `de`, ...). */
  marketplace: string;
  /** Results pages to read, 1..pages (1-5). */
  pages: number;
  /** Attempts of each page read before the task fails with 50301. */
  readAttempts: number;
  /** First retry delay of a failed read, ms. */
  retryInitialMs: number;
  /** For live reads: the whole task must finish within this many ms. */
  budgetMs?: number;
  /** task_post tasks with a postback_url / pingback_url: deliveries to start once the task finishes. */
  webhooks?: WebhookPlan;
}

/** Input of the `readSearchPage` activity: one results page of a search task. */
export interface ReadSearchPageInput {
  keyword: string;
  marketplace: string;
  /** 1-based results page. */
  page: number;
  /** The task the read is for (marked running while the page loads). */
  taskId?: string;
  /**
   * The `observed_at` to store (ISO 8601): the pages of one task share their first page's time, so
   * that rank history sees them as one read (core/search-observations.ts `rankHistory`).
   */
  observedAt?: string;
  /** Answer from a stored read of this keyword, marketplace and page observed at or after this time (ISO 8601), if any. */
  reuseSince?: string;
}

/** What the `readSearchPage` activity returns: the SearchResults observation stored (or reused). */
export interface ReadSearchPageResult {
  /** Observation id, as a decimal string (bigint is not JSON). */
  observationId: string;
  status: 'ok' | 'no_results';
  /** The observation's `observed_at` (ISO 8601). */
  observedAt: string;
  /** True when a stored read answered without loading the page. */
  reused: boolean;
  /** Every attempt of the read (absent when reused). */
  attempts?: SourceAttempt[];
}

/** How a `searchTask` workflow ended. */
export interface SearchTaskOutcome {
  taskId: string;
  statusCode: number;
  /** The observations read, page order (empty when the task failed). */
  observationIds: string[];
}
