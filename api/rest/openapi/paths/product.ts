/**
 * /openapi.json operations of the product endpoints (api-spec.md "Product endpoints").
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { IDEMPOTENCY_KEY_PATTERN } from '../../middleware/idempotency.js';
import { historyTask, liveTask, taskArrayBody, taskGetParams, taskPostTask } from '../../../../core/validation/requests.js';
import { envelopeOf, errorResponse, jsonOk, operation } from '../operations.js';
import { product, tasksReadyRow } from '../resources.js';
import { withBulkUpload } from './analytics.js';
import { STATUS } from '../../../../core/domain/status-codes.js';

const tags = ['product'];

/** The Idempotency-Key header of task_post and live (api/rest/middleware/idempotency.ts). */
export const idempotencyHeader = z.object({
  'Idempotency-Key': z.string().regex(IDEMPOTENCY_KEY_PATTERN).optional().meta({
    description: 'Makes a retry safe: sent again with the same key and the same body within 24 hours, the request gets the first response again, byte for byte (same task ids, header `Idempotent-Replayed: true`), and is charged nothing. 1 to 255 visible ASCII characters (a UUID is a good choice); otherwise 400 / 40501 naming `Idempotency-Key`. Keys are per account. A request refused as a whole (4xx / 5xx) frees its key.',
    examples: ['3f2b9c1e-8d4a-4b6f-9e2d-1a7c5b8e0f43'],
  }),
});
export const IDEMPOTENCY_CONFLICT = errorResponse([STATUS.BAD_REQUEST], 'The Idempotency-Key was used with another body or endpoint in the last 24 hours, or its first request is still being answered (then with Retry-After).');
export const PAYMENT_REQUIRED = errorResponse([STATUS.PAYMENT_REQUIRED], 'The balance covers no task of the request (otherwise only the unaffordable tasks fail, at task level).');

/** Operations under /v1/retail/product. */
export const productPaths: ZodOpenApiPathsObject = {
  '/v1/retail/product/task_post': {
    post: withBulkUpload(operation({
      operationId: 'taskPost',
      tags,
      summary: 'Queue product reads',
      description: 'Creates one task per element (1 to 100), charged at posting. A task completes at once from a stored observation younger than 60 minutes; otherwise the page is read in the background. Collect the results with tasks_ready and task_get, or with webhooks. Results are kept 30 days. Each element is validated on its own: a bad field fails only its task (40501 naming it, 40502, 40503), unless no element is valid (then HTTP 400 with the first element\'s code).',
      auth: 'required',
      body: taskArrayBody(taskPostTask),
      header: idempotencyHeader,
      ok: jsonOk('Accepted tasks have status 20100. A task whose workflow could not be started answers 50301 and is not charged; one that failed unexpectedly answers 50000 and is not charged.', envelopeOf('TaskPostResponse', null, [STATUS.TASK_CREATED, STATUS.PAYMENT_REQUIRED, STATUS.INVALID_FIELD, STATUS.UNKNOWN_MARKETPLACE, STATUS.INVALID_ASIN, STATUS.INTERNAL_ERROR, STATUS.SOURCE_UNAVAILABLE])),
      responses: { 402: PAYMENT_REQUIRED, 403: errorResponse([STATUS.FEATURE_NOT_AVAILABLE], 'Priority 2 on a plan without high priority.'), 409: IDEMPOTENCY_CONFLICT },
    })),
  },
  '/v1/retail/product/tasks_ready': {
    get: operation({
      operationId: 'tasksReady',
      tags,
      summary: 'Finished tasks not yet collected',
      description: 'task_post tasks finished and not yet collected with task_get, oldest first, at most 1,000.',
      auth: 'required',
      ok: jsonOk('One task whose result lists the finished tasks.', envelopeOf('TasksReadyResponse', tasksReadyRow, [STATUS.OK])),
    }),
  },
  '/v1/retail/product/task_get/{id}': {
    get: operation({
      operationId: 'taskGet',
      tags,
      summary: 'Result of a task',
      description: 'The Product of a task_post task once finished; the first call after completion marks the task collected (it leaves tasks_ready).',
      auth: 'required',
      path: taskGetParams,
      ok: jsonOk('The task, with its Product when finished with 20000.', envelopeOf('TaskGetResponse', product, [STATUS.OK, STATUS.TASK_NOT_READY, STATUS.PRODUCT_NOT_FOUND, STATUS.SOURCE_UNAVAILABLE])),
      responses: { 404: errorResponse([STATUS.NOT_FOUND], 'Unknown task id.') },
    }),
  },
  '/v1/retail/product/live': {
    post: operation({
      operationId: 'live',
      tags,
      summary: 'Read one product now',
      description: 'Takes exactly one element. A stored observation at most `max_age_minutes` old is returned at once; otherwise the page is read within a 60-second budget, after which the task answers 50301 and is not charged.',
      auth: 'required',
      body: taskArrayBody(liveTask, 1),
      header: idempotencyHeader,
      ok: jsonOk('The task with its Product.', envelopeOf('LiveResponse', product, [STATUS.OK, STATUS.PRODUCT_NOT_FOUND, STATUS.SOURCE_UNAVAILABLE])),
      responses: { 402: errorResponse([STATUS.PAYMENT_REQUIRED]), 403: errorResponse([STATUS.FEATURE_NOT_AVAILABLE], 'live is not on the plan.'), 409: IDEMPOTENCY_CONFLICT },
    }),
  },
  '/v1/retail/product/history': {
    post: operation({
      operationId: 'history',
      tags,
      summary: 'Stored observations of products',
      description: 'Per element (1 to 100): stored observations of one product, newest first, from every request or subscription; charged per element, up to 1,000 rows each.',
      auth: 'required',
      body: taskArrayBody(historyTask),
      ok: jsonOk('One task per element with its Products.', envelopeOf('HistoryResponse', product, [STATUS.OK, STATUS.PAYMENT_REQUIRED, STATUS.INVALID_FIELD, STATUS.UNKNOWN_MARKETPLACE, STATUS.INVALID_ASIN, STATUS.INTERNAL_ERROR])),
      responses: { 402: PAYMENT_REQUIRED },
    }),
  },
};
