/**
 * Search endpoints under /v1/retail/search (search-page-contract.md "API"): the product endpoints'
 * authentication, rate limits, envelope and Idempotency-Key rules (api-spec.md).
 */
import { Router } from '@koa/router';
import type { AccountRateLimits } from '../../../core/rate-limits.js';
import type { AppState } from '../context.js';
import { requireAuth } from '../middleware/auth.js';
import { answerIdempotently } from '../middleware/idempotency.js';
import { searchLive, searchRankHistory, searchTaskPost } from '../../services/search-tasks.js';
import type { ProductTaskDeps } from '../../services/product-tasks.js';
import { getTask, listReadyTasks } from '../../../core/services/task-results.js';
import { taskGetEnvelope } from '../envelope/task-get.js';
import { tasksReadyEnvelope } from '../envelope/tasks-ready.js';
import { renderEnvelope } from '../envelope/envelope.js';

/** The search routes; `deps` as the product routes'. */
export function searchRoutes(deps: ProductTaskDeps, rateLimits?: AccountRateLimits): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/v1/retail/search' });
  router.use(requireAuth(deps.db, rateLimits));

  const idempotency = { db: deps.db, logger: deps.logger, rateLimits };
  router.post('/task_post', async (ctx) => {
    await answerIdempotently(ctx, idempotency, 'search/task_post', async () => ({ status: 200, body: renderEnvelope(await searchTaskPost(deps, ctx.state.account!, ctx.request.json), ctx.state.startedAt) }));
  });
  router.get('/tasks_ready', async (ctx) => {
    ctx.body = tasksReadyEnvelope(await listReadyTasks(deps.db, ctx.state.account!.id, 'search'), ctx.state.startedAt, 'search');
  });
  router.get('/task_get/:id', async (ctx) => {
    ctx.body = taskGetEnvelope(await getTask(deps.db, ctx.state.account!.id, ctx.params.id!, 'search'), ctx.state.startedAt);
  });
  router.post('/live', async (ctx) => {
    await answerIdempotently(ctx, idempotency, 'search/live', async () => ({ status: 200, body: renderEnvelope(await searchLive(deps, ctx.state.account!, ctx.request.json), ctx.state.startedAt) }));
  });
  router.post('/rank_history', async (ctx) => {
    ctx.body = renderEnvelope(await searchRankHistory(deps, ctx.state.account!, ctx.request.json), ctx.state.startedAt);
  });
  return router;
}
