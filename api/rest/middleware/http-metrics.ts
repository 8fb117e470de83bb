/**
 * Counts every request and its latency by method and matched route (the route pattern, never the
 * raw path, so task ids do not explode the label set).
 */
import type { Middleware } from 'koa';
import { httpLatency, httpRequests } from '../../../core/metrics.js';

export function httpMetrics(): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      httpRequests.inc({ method: ctx.method, route, status: String(ctx.status) });
      httpLatency.observe({ method: ctx.method, route }, (performance.now() - started) / 1000);
    }
  };
}
