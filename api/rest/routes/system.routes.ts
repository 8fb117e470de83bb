/**
 * GET /health (liveness plus queue visibility) and GET /ready (database reachable and every
 * migration applied; otherwise 503) — api-spec.md "System and public" — and GET /metrics
 * (Prometheus), never public on the API port: only with METRICS_TOKEN set and its Bearer token
 * sent (otherwise 401 / 40100); 404 when METRICS_LISTEN serves it elsewhere or neither is set
 * (core/metrics.ts `apiMetricsExposure`).
 */
import { Router } from '@koa/router';
import type { Db } from '../../../core/db/db.js';
import { prismaQueryable } from '../../../core/db/prisma.js';
import { pendingMigrations } from '../../../core/db/migrator.js';
import { API_VERSION } from '../../../core/version.js';
import type { Config } from '../../../core/config.js';
import { DomainError } from '../../../core/errors.js';
import { HttpError } from '../http-error.js';
import type { Logger } from '../../../core/logger.js';
import { apiMetricsExposure, metricsAuthorized, registry, trackTaskStates } from '../../../core/metrics.js';
import type { AppState } from '../context.js';

/** The system routes; with neither METRICS_TOKEN nor METRICS_LISTEN set, logs a warning that /metrics is not served. */
export function systemRoutes(db: Db, config: Pick<Config, 'METRICS_TOKEN' | 'METRICS_LISTEN'>, logger: Logger): Router<AppState> {
  const router = new Router<AppState>();

  router.get('/health', async (ctx) => {
    const queued = await db.prisma.task.groupBy({
      by: ['priority'],
      where: { state: { in: ['queued', 'running'] } },
      _count: { _all: true },
      _min: { createdAt: true },
    }).catch(() => null);
    const byPriority = Object.fromEntries((queued ?? []).map((q) => [String(q.priority), q._count._all]));
    const oldest = (queued ?? []).map((q) => q._min.createdAt?.getTime() ?? Infinity).reduce((a, b) => Math.min(a, b), Infinity);
    ctx.body = {
      status: 'ok',
      version: API_VERSION,
      uptime_seconds: Math.round(process.uptime()),
      database: queued !== null,
      queue: {
        queued_tasks: byPriority,
        oldest_queued_age_seconds: Number.isFinite(oldest) ? Math.round((Date.now() - oldest) / 1000) : null,
      },
    };
  });

  trackTaskStates(db);
  const exposure = apiMetricsExposure(config);
  if (exposure === 'none') logger.warn('GET /metrics is not served: set METRICS_TOKEN (Bearer token on the API port) or METRICS_LISTEN (a listen address of its own)');
  router.get('/metrics', async (ctx) => {
    if (exposure !== 'api-port') throw new DomainError('NOT_FOUND');
    if (!metricsAuthorized(ctx.get('authorization') || undefined, config.METRICS_TOKEN)) {
      throw new HttpError('AUTH_FAILED', { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } });
    }
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });

  router.get('/ready', async (ctx) => {
    let database: boolean;
    let pending: string[] = [];
    try {
      pending = await pendingMigrations(prismaQueryable(db.prisma));
      database = true;
    } catch {
      database = false;
    }
    const ready = database && pending.length === 0;
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', database, pending_migrations: pending };
  });

  return router;
}
