/**
 * Prometheus metrics (prom-client), one registry per process: HTTP requests and latency by route,
 * tasks by state (read from the database at most once per DB_GAUGE_CACHE_MS, whatever the number
 * of scrapes), source reads by marketplace and outcome, read attempts per proxy (reads, outcomes,
 * latency, quarantines), webhook attempts, monitoring deliveries.
 *
 * Where /metrics is served (operations-contract.md `METRICS_TOKEN` / `METRICS_LISTEN`; never
 * public on the API port), decided by `apiMetricsExposure`:
 * - `METRICS_LISTEN` set → on that address only (core/metrics-server.ts); the API port answers 404;
 * - else `METRICS_TOKEN` set → on the API port, for `Authorization: Bearer <METRICS_TOKEN>` only (401 otherwise);
 * - neither → nowhere: the API port answers 404 and the API logs a warning at start.
 * When METRICS_TOKEN is set every /metrics listener requires it, a standalone worker's too.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Config } from './config.js';
import type { Db } from './db/db.js';
import { IntervalCache } from './interval-cache.js';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** HTTP requests by method, matched route and status. */
export const httpRequests = new Counter({
  name: 'retail_http_requests_total',
  help: 'HTTP requests by method, route and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

/** HTTP latency in seconds by method and matched route. */
export const httpLatency = new Histogram({
  name: 'retail_http_request_duration_seconds',
  help: 'HTTP request duration in seconds by method and route',
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

/** Source (page) reads by marketplace and outcome: ok, no_bsr, not_found, blocked, unavailable. */
export const sourceReads = new Counter({
  name: 'retail_source_reads_total',
  help: 'Product page reads by marketplace and outcome',
  labelNames: ['marketplace', 'outcome'] as const,
  registers: [registry],
});

/** Search results page reads by marketplace and outcome: ok, no_results, blocked, unavailable (apart from product reads). */
export const searchReads = new Counter({
  name: 'retail_search_reads_total',
  help: 'Search results page reads by marketplace and outcome',
  labelNames: ['marketplace', 'outcome'] as const,
  registers: [registry],
});

/**
 * Page read attempts by proxy (`host:port`, `host:port#n`, or `direct`; never credentials),
 * marketplace and outcome: `product`, `not_found`, `blocked` (robot check, error page, error
 * status), `proxy_error` (the proxy refused, failed or asked for credentials), `unavailable`
 * (timeout, network). One read may make several attempts (SOURCE_ATTEMPTS).
 */
export const sourceProxyReads = new Counter({
  name: 'retail_source_proxy_reads_total',
  help: 'Page read attempts by proxy host, marketplace and outcome',
  labelNames: ['proxy', 'marketplace', 'outcome'] as const,
  registers: [registry],
});

/** Duration of page read attempts in seconds by proxy, from a page slot to the document's bytes or the failure. */
export const sourceProxyLatency = new Histogram({
  name: 'retail_source_proxy_read_duration_seconds',
  help: 'Page read attempt duration in seconds by proxy host',
  labelNames: ['proxy'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

/** Times a proxy was quarantined for a marketplace (SOURCE_PROXY_MAX_BLOCK_RATE). */
export const sourceProxyQuarantines = new Counter({
  name: 'retail_source_proxy_quarantines_total',
  help: 'Quarantines of a proxy for a marketplace',
  labelNames: ['proxy', 'marketplace'] as const,
  registers: [registry],
});

/** 1 while a proxy is quarantined for a marketplace, else 0. */
export const sourceProxyQuarantined = new Gauge({
  name: 'retail_source_proxy_quarantined',
  help: '1 while the proxy is quarantined for the marketplace',
  labelNames: ['proxy', 'marketplace'] as const,
  registers: [registry],
});

/** Webhook delivery attempts by kind (postback, pingback) and outcome (delivered, failed, refused). */
export const webhookAttempts = new Counter({
  name: 'retail_webhook_attempts_total',
  help: 'Webhook delivery attempts by kind and outcome',
  labelNames: ['kind', 'outcome'] as const,
  registers: [registry],
});

/** Monitoring deliveries by outcome (charged, free, unpaid ...). */
export const monitoringDeliveries = new Counter({
  name: 'retail_monitoring_deliveries_total',
  help: 'Monitoring deliveries by outcome',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/**
 * What the reconciler settled that its surface left behind, by surface (`task`: task_post and
 * live tasks; `monitoring`: monitoring runs' reservations; `read`: GraphQL analytics and history
 * export reservations) and outcome (`started`, `refunded`, `error`).
 */
export const reconcilerSettlements = new Counter({
  name: 'retail_reconciler_settlements_total',
  help: 'Charges the reconciler settled, by surface and outcome',
  labelNames: ['surface', 'outcome'] as const,
  registers: [registry],
});

/** V8 heap figures of one thread, bytes (`v8.getHeapStatistics()` names, the subset the gauge shows). */
export interface ThreadHeap {
  used_heap_size: number;
  total_heap_size: number;
  external_memory: number;
}

const threadHeapSources = new Set<() => Promise<ThreadHeap[]>>();

/**
 * Memory of the page-parse threads (worker/parser/parse-pool.ts), which prom-client's default
 * `nodejs_heap_*` metrics do not see (they describe the main thread only): per thread, the V8 heap
 * in use, its size and the external memory it holds, bytes. Read when /metrics is scraped.
 */
export const parseThreadHeap = new Gauge({
  name: 'retail_parse_thread_heap_bytes',
  help: 'V8 heap of each page-parse thread in bytes, by thread and kind (used, total, external)',
  labelNames: ['thread', 'kind'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    let thread = 0;
    for (const source of threadHeapSources) {
      for (const heap of await source().catch(() => [])) {
        const labels = String(thread++);
        this.set({ thread: labels, kind: 'used' }, heap.used_heap_size);
        this.set({ thread: labels, kind: 'total' }, heap.total_heap_size);
        this.set({ thread: labels, kind: 'external' }, heap.external_memory);
      }
    }
  },
});

/**
 * Adds a source of parse-thread heaps to `retail_parse_thread_heap_bytes` (threads numbered in the
 * order of sources, then of each source's threads); returns the function that removes it.
 */
export function trackParseThreadHeaps(source: () => Promise<ThreadHeap[]>): () => void {
  threadHeapSources.add(source);
  return () => threadHeapSources.delete(source);
}

const wasmMemorySources = new Set<() => number | undefined>();

/**
 * The embedded database's WASM linear memory (PGlite, in the service's process on the default
 * database), bytes. It grows with the database's working set and never shrinks: part of the
 * process's RSS that is neither V8 heap nor native Node memory. Absent on a database server.
 */
export const embeddedDatabaseMemory = new Gauge({
  name: 'retail_embedded_database_memory_bytes',
  help: 'WASM memory of the embedded database (PGlite) in bytes',
  registers: [registry],
  collect() {
    this.reset();
    let total: number | undefined;
    for (const source of wasmMemorySources) {
      const bytes = source();
      if (bytes !== undefined) total = (total ?? 0) + bytes;
    }
    if (total !== undefined) this.set(total);
  },
});

/** Adds an embedded database's memory to `retail_embedded_database_memory_bytes`; returns the function that removes it. */
export function trackEmbeddedDatabaseMemory(source: () => number | undefined): () => void {
  wasmMemorySources.add(source);
  return () => wasmMemorySources.delete(source);
}

/** How long the database gauges' values are reused between scrapes (ms): one query per interval whatever the scrapers. */
export const DB_GAUGE_CACHE_MS = 15_000;

let tasksGauge: Gauge | undefined;

/** Registers the tasks-by-state gauge, read from the database when /metrics is scraped, at most once per DB_GAUGE_CACHE_MS. */
export function trackTaskStates(db: Db): void {
  if (tasksGauge) return;
  const counts = new IntervalCache(DB_GAUGE_CACHE_MS, () => db.prisma.task.groupBy({ by: ['endpoint', 'state'], _count: { _all: true } }));
  tasksGauge = new Gauge({
    name: 'retail_tasks',
    help: 'Tasks by endpoint and state (queued, running, completed, failed)',
    labelNames: ['endpoint', 'state'] as const,
    registers: [registry],
    async collect() {
      const rows = await counts.get().catch(() => []);
      this.reset();
      for (const row of rows) this.set({ endpoint: row.endpoint, state: row.state }, row._count._all);
    },
  });
}

/** Where the API process serves /metrics: on its own port behind the token, on METRICS_LISTEN, or nowhere. */
export type MetricsExposure = 'api-port' | 'listen' | 'none';

/** The API's /metrics exposure under `config` (rules in this module's header). */
export function apiMetricsExposure(config: Pick<Config, 'METRICS_TOKEN' | 'METRICS_LISTEN'>): MetricsExposure {
  if (config.METRICS_LISTEN) return 'listen';
  return config.METRICS_TOKEN ? 'api-port' : 'none';
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * True when `authorization` is `Bearer <token>` (compared in constant time), or when no token is
 * configured (`token` undefined: a listener of its own, METRICS_LISTEN or WORKER_METRICS_PORT).
 */
export function metricsAuthorized(authorization: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const sent = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(sent), digest(token));
}
