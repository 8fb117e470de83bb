/**
 * /openapi.json operations of the product endpoints (api-spec.md "Product endpoints").
 */
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { historyTask, liveTask, taskArrayBody, taskGetParams, taskPostTask } from '../../validation/requests.js';
import { envelopeOf, errorResponse, jsonOk, operation } from '../operations.js';
import { product, tasksReadyRow } from '../resources.js';

const tags = ['product'];
const PAYMENT_REQUIRED = errorResponse([40200], 'The balance covers no task of the request (otherwise only the unaffordable tasks fail, at task level).');

/** Operations under /v1/retail/product. */
export const productPaths: ZodOpenApiPathsObject = {
  '/v1/retail/product/task_post': {
    post: operation({
      operationId: 'taskPost',
      tags,
      summary: 'Queue product reads',
      description: 'Creates one task per element (1 to 100), charged at posting. A task completes at once from a stored observation younger than 60 minutes; otherwise the page is read in the background. Collect the results with tasks_ready and task_get, or with webhooks. Results are kept 30 days. Each element is validated on its own: a bad field fails only its task (40501 naming it, 40502, 40503), unless no element is valid (then HTTP 400 with the first element\'s code).',
      auth: 'required',
      body: taskArrayBody(taskPostTask),
      ok: jsonOk('Accepted tasks have status 20100.', envelopeOf('TaskPostResponse', null, [20100, 40200, 40501, 40502, 40503])),
      responses: { 402: PAYMENT_REQUIRED, 403: errorResponse([40600], 'Priority 2 on a plan without high priority.') },
    }),
  },
  '/v1/retail/product/tasks_ready': {
    get: operation({
      operationId: 'tasksReady',
      tags,
      summary: 'Finished tasks not yet collected',
      description: 'task_post tasks finished and not yet collected with task_get, oldest first, at most 1,000.',
      auth: 'required',
      ok: jsonOk('One task whose result lists the finished tasks.', envelopeOf('TasksReadyResponse', tasksReadyRow, [20000])),
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
      ok: jsonOk('The task, with its Product when finished with 20000.', envelopeOf('TaskGetResponse', product, [20000, 40401, 40402, 50301])),
      responses: { 404: errorResponse([40400], 'Unknown task id.') },
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
      ok: jsonOk('The task with its Product.', envelopeOf('LiveResponse', product, [20000, 40402, 50301])),
      responses: { 402: errorResponse([40200]), 403: errorResponse([40600], 'live is not on the plan.') },
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
      ok: jsonOk('One task per element with its Products.', envelopeOf('HistoryResponse', product, [20000, 40200, 40501, 40502, 40503])),
      responses: { 402: PAYMENT_REQUIRED },
    }),
  },
};
