/**
 * History analytics and bulk data under /v1/retail/product: POST stats, GET history/export, GET
 * batch_results/{batch_id}, and the bulk form of task_post (`text/csv`, `application/x-ndjson`),
 * which product.routes.ts hands to `bulkUpload` (one path, two body kinds).
 */
import { Router } from '@koa/router';
import type { AccountRateLimits } from '../../../core/rate-limits.js';
import { bulkFormatOf } from '../../../core/validation/analytics.js';
import { bulkTaskPost, type BulkDeps } from '../../services/bulk-tasks.js';
import { openBatchExport, openHistoryExport } from '../../services/exports.js';
import type { ProductTaskDeps } from '../../services/product-tasks.js';
import { stats } from '../../services/stats.js';
import { spoolUpload } from '../bulk-upload.js';
import type { AppContext, AppState } from '../context.js';
import { sendBatchExport, sendHistoryExport } from '../exports.js';
import { requireAuth } from '../middleware/auth.js';
import { answerIdempotently } from '../middleware/idempotency.js';
import type { Logger } from '../../../core/logger.js';
import type { Db } from '../../../core/db/db.js';
import { renderEnvelope } from '../envelope/envelope.js';

/**
 * Answers a bulk task_post: reads the body into a spool (refusing a bad upload as a whole before
 * anything is charged), then runs it under the Idempotency-Key rules of task_post, the upload
 * identified by its SHA-256.
 */
export async function bulkUpload(ctx: AppContext, deps: BulkDeps, idempotency: { db: Db; logger: Logger; rateLimits?: AccountRateLimits }): Promise<void> {
  const format = bulkFormatOf(ctx.get('content-type'))!;
  const length = ctx.get('content-length');
  const upload = await spoolUpload(ctx.req, format, length ? Number(length) : undefined);
  try {
    await answerIdempotently(ctx, idempotency, 'task_post', async () => {
      const outcome = await bulkTaskPost(deps, ctx.state.account!, upload);
      ctx.state.usage = { tasks: upload.rows, cost: outcome.cost };
      return { status: 200, body: renderEnvelope(outcome, ctx.state.startedAt) };
    }, { bulk: format, sha256: upload.sha256 });
  } finally {
    await upload.dispose();
  }
}

export function analyticsRoutes(deps: ProductTaskDeps, rateLimits?: AccountRateLimits): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/v1/retail/product' });
  router.use(requireAuth(deps.db, rateLimits));

  router.post('/stats', async (ctx) => {
    ctx.body = renderEnvelope(await stats(deps, ctx.state.account!, ctx.request.json), ctx.state.startedAt);
  });
  router.get('/history/export', async (ctx) => {
    sendHistoryExport(ctx, await openHistoryExport(deps, ctx.state.account!, ctx.query));
  });
  router.get('/batch_results/:batch_id', async (ctx) => {
    sendBatchExport(ctx, await openBatchExport(deps, ctx.state.account!, ctx.params, ctx.query));
  });
  return router;
}
