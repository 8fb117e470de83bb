/**
 * Product endpoints under /v1/retail/product (api-spec.md "Product endpoints").
 */
import { Router } from '@koa/router';
import { AccountRateLimits } from '../../../core/rate-limits.js';
import type { AppState } from '../context.js';
import { requireAuth } from '../middleware/auth.js';
import { answerIdempotently } from '../middleware/idempotency.js';
import { isBulkUpload } from '../middleware/json-body.js';
import { bulkUpload } from './analytics.routes.js';
import { history } from '../../services/history.js';
import { live } from '../../services/live.js';
import { taskPost, type ProductTaskDeps } from '../../services/product-tasks.js';
import { getTask, listReadyTasks } from '../../../core/services/task-results.js';
import { taskGetEnvelope } from '../envelope/task-get.js';
import { tasksReadyEnvelope } from '../envelope/tasks-ready.js';
import { renderEnvelope } from '../envelope/envelope.js';

export function productRoutes(deps: ProductTaskDeps, rateLimits?: AccountRateLimits): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/v1/retail/product' });
  router.use(requireAuth(deps.db, rateLimits));

  const idempotency = { db: deps.db, logger: deps.logger, rateLimits };
  router.post('/task_post', async (ctx) => {
    if (isBulkUpload(ctx)) return bulkUpload(ctx, { ...deps, rateLimits: rateLimits ?? new AccountRateLimits(deps.db) }, idempotency);
    await answerIdempotently(ctx, idempotency, 'task_post', async () => ({ status: 200, body: renderEnvelope(await taskPost(deps, ctx.state.account!, ctx.request.json), ctx.state.startedAt) }));
  });
  router.get('/tasks_ready', async (ctx) => {
    ctx.body = tasksReadyEnvelope(await listReadyTasks(deps.db, ctx.state.account!.id), ctx.state.startedAt);
  });
  router.get('/task_get/:id', async (ctx) => {
    ctx.body = taskGetEnvelope(await getTask(deps.db, ctx.state.account!.id, ctx.params.id!), ctx.state.startedAt);
  });
  router.post('/live', async (ctx) => {
    await answerIdempotently(ctx, idempotency, 'live', async () => ({ status: 200, body: renderEnvelope(await live(deps, ctx.state.account!, ctx.request.json), ctx.state.startedAt) }));
  });
  router.post('/history', async (ctx) => {
    ctx.body = renderEnvelope(await history(deps, ctx.state.account!, ctx.request.json), ctx.state.startedAt);
  });
  return router;
}
