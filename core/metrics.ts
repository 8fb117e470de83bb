/**
 * Prometheus metrics (prom-client), one registry per process: HTTP requests and latency by route,
 * tasks by state (read from the database at scrape time), source reads by marketplace and outcome,
 * webhook attempts, monitoring deliveries. Served at GET /metrics.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PrismaClient } from './db/prisma.js';

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

let tasksGauge: Gauge | undefined;

/** Registers the tasks-by-state gauge, read from the database when /metrics is scraped. */
export function trackTaskStates(prisma: PrismaClient): void {
  if (tasksGauge) return;
  tasksGauge = new Gauge({
    name: 'retail_tasks',
    help: 'Tasks by endpoint and state (queued, running, completed, failed)',
    labelNames: ['endpoint', 'state'] as const,
    registers: [registry],
    async collect() {
      const rows = await prisma.task.groupBy({ by: ['endpoint', 'state'], _count: { _all: true } }).catch(() => []);
      this.reset();
      for (const row of rows) this.set({ endpoint: row.endpoint, state: row.state }, row._count._all);
    },
  });
}
