/**
 * buildApp(deps): the Koa application with every REST route. It never listens; `api/server.ts`
 * and tests decide where it runs.
 */
import Koa from 'koa';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/db.js';
import { HttpError } from './rest/http-error.js';
import type { Logger } from '../core/logger.js';
import { AccountRateLimits } from '../core/rate-limits.js';
import type { AppState } from './rest/context.js';
import { accessLog } from './rest/middleware/access-log.js';
import { errorEnvelope } from './rest/middleware/error-envelope.js';
import { httpMetrics } from './rest/middleware/http-metrics.js';
import { jsonBody } from './rest/middleware/json-body.js';
import { metering } from './rest/middleware/metering.js';
import { analyticsRoutes } from './rest/routes/analytics.routes.js';
import { appendixRoutes } from './rest/routes/appendix.routes.js';
import { dashboardRoutes } from './dashboard-routes.js';
import { graphqlRoutes } from './graphql-routes.js';
import { mcpRoutes } from './mcp/http.js';
import { monitoringRoutes } from './rest/routes/monitoring.routes.js';
import { openapiRoutes } from './rest/routes/openapi.routes.js';
import { productRoutes } from './rest/routes/product.routes.js';
import { searchRoutes } from './rest/routes/search.routes.js';
import { publicRoutes } from './rest/routes/public.routes.js';
import { systemRoutes } from './rest/routes/system.routes.js';
import { webhookLogRoutes } from './rest/routes/webhook-log.routes.js';
import type { MonitorLauncher } from './services/monitor-launcher.js';
import { cachedMarketplaceStatuses } from './services/status.js';
import type { TaskLauncher } from './services/task-launcher.js';
import type { WebhookLauncher } from '../core/temporal/webhook-launcher.js';

export interface AppDeps {
  config: Config;
  /** The process's database, opened once (core/db/db.ts). */
  db: Db;
  launcher: TaskLauncher;
  logger: Logger;
  /** Monitoring workflows; required by the monitoring routes (api/server.ts always sets it). */
  monitors?: MonitorLauncher;
  /** Webhook redeliveries; required by redeliver (api/server.ts always sets it). */
  webhookLauncher?: WebhookLauncher;
}

const methodNotAllowed = () => new HttpError('BAD_REQUEST', { httpStatus: 405, message: 'Bad Request. Method not allowed.' });

export function buildApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  // X-Forwarded-For is believed only from the proxies TRUST_PROXY declares (core/config.ts): ctx.ip
  // is then the address the outermost of them saw, else the connection's peer.
  app.proxy = deps.config.TRUST_PROXY > 0;
  app.maxIpsCount = deps.config.TRUST_PROXY;
  app.use(httpMetrics());
  app.use(accessLog(deps.logger));
  app.use(errorEnvelope(deps.logger));
  app.use(dashboardRoutes());
  app.use(metering(deps));
  app.use(jsonBody());
  const rateLimits = new AccountRateLimits(deps.db);
  // One marketplace-status cache per app: REST and GraphQL answer from the same computation.
  const statuses = cachedMarketplaceStatuses(deps.db);
  for (const router of [systemRoutes(deps.db, deps.config, deps.logger), publicRoutes(deps.db), productRoutes(deps, rateLimits), searchRoutes(deps, rateLimits), analyticsRoutes(deps, rateLimits), monitoringRoutes(deps, rateLimits), appendixRoutes(deps, rateLimits, statuses), webhookLogRoutes(deps, rateLimits), openapiRoutes(deps.config)]) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: true, methodNotAllowed, notImplemented: methodNotAllowed }));
  }
  app.use(graphqlRoutes(deps, rateLimits, statuses).routes());
  const mcp = mcpRoutes({ ...deps, rateLimits });
  app.use(mcp.routes());
  app.use(mcp.allowedMethods({ throw: true, methodNotAllowed, notImplemented: methodNotAllowed }));
  app.on('error', (error) => deps.logger.error({ err: error }, 'koa error'));
  return app;
}
