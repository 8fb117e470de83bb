/**
 * Monitoring endpoints under /v1/retail/monitoring (api-spec.md "Monitoring endpoints").
 */
import { Router } from '@koa/router';
import type { AccountRateLimits } from '../../../core/rate-limits.js';
import type { AppState } from '../context.js';
import { requireAuth } from '../middleware/auth.js';
import { addMonitoring, deleteMonitoring, listMonitoring, type MonitoringDeps } from '../../services/monitoring.js';
import type { MonitorLauncher } from '../../services/monitor-launcher.js';
import { renderEnvelope } from '../envelope/envelope.js';

/** `deps.monitors` is required by these routes (api/server.ts always provides it). */
export function monitoringRoutes(deps: Omit<MonitoringDeps, 'monitors'> & { monitors?: MonitorLauncher }, rateLimits?: AccountRateLimits): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/v1/retail/monitoring' });
  router.use(requireAuth(deps.db, rateLimits));
  const withMonitors = (): MonitoringDeps => {
    if (!deps.monitors) throw new Error('the monitoring routes need a MonitorLauncher (AppDeps.monitors)');
    return { ...deps, monitors: deps.monitors };
  };

  router.post('/add', async (ctx) => {
    ctx.body = renderEnvelope(await addMonitoring(withMonitors(), ctx.state.account!, ctx.request.json), ctx.state.startedAt);
  });
  router.post('/delete', async (ctx) => {
    ctx.body = renderEnvelope(await deleteMonitoring(withMonitors(), ctx.state.account!, ctx.request.json), ctx.state.startedAt);
  });
  router.get('/list', async (ctx) => {
    ctx.body = renderEnvelope(await listMonitoring(deps, ctx.state.account!, ctx.query), ctx.state.startedAt);
  });
  return router;
}
