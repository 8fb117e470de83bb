/**
 * /openapi.json operations of the search endpoints (search-page-contract.md "API").
 */
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { taskArrayBody, taskGetParams } from '../../../../core/validation/requests.js';
import { rankHistoryTask, searchLiveTask, searchTaskPostTask } from '../../../../core/validation/search-fields.js';
import { envelopeOf, errorResponse, jsonOk, operation } from '../operations.js';
import { rankPoint, searchResults, searchTasksReadyRow } from '../search-resources.js';
import { IDEMPOTENCY_CONFLICT, idempotencyHeader, PAYMENT_REQUIRED } from './product.js';
import { STATUS } from '../../../../core/domain/status-codes.js';

const tags = ['search'];

/** Operations under /v1/retail/search. */
export const searchPaths: ZodOpenApiPathsObject = {
  '/v1/retail/search/task_post': {
    post: operation({
      operationId: 'searchTaskPost',
      tags,
      summary: 'Queue keyword searches',
      description: 'Creates one task per element (1 to 100) reading the results pages 1..`pages` (1 to 5) of `keyword`, charged at posting at the search price per page (twice the product task price of the plan). '
        + 'A task whose every page was read less than 60 minutes ago completes at once from those reads. A task whose page 1 says "no results" reads no further page: it completes with 20000, charged for that page, the others refunded. '
        + 'A page that cannot be read fails the task with 50301, refunded whole. Collect with tasks_ready and task_get, or with webhooks.',
      auth: 'required',
      body: taskArrayBody(searchTaskPostTask),
      header: idempotencyHeader,
      ok: jsonOk('Accepted tasks have status 20100.', envelopeOf('SearchTaskPostResponse', null, [STATUS.TASK_CREATED, STATUS.PAYMENT_REQUIRED, STATUS.INVALID_FIELD, STATUS.UNKNOWN_MARKETPLACE, STATUS.INTERNAL_ERROR, STATUS.SOURCE_UNAVAILABLE])),
      responses: { 402: PAYMENT_REQUIRED, 403: errorResponse([STATUS.FEATURE_NOT_AVAILABLE], 'Priority 2 on a plan without high priority.'), 409: IDEMPOTENCY_CONFLICT },
    }),
  },
  '/v1/retail/search/tasks_ready': {
    get: operation({
      operationId: 'searchTasksReady',
      tags,
      summary: 'Finished search tasks not yet collected',
      description: 'Search task_post tasks finished and not yet collected with task_get, oldest first, at most 1,000.',
      auth: 'required',
      ok: jsonOk('One task whose result lists the finished search tasks.', envelopeOf('SearchTasksReadyResponse', searchTasksReadyRow, [STATUS.OK])),
    }),
  },
  '/v1/retail/search/task_get/{id}': {
    get: operation({
      operationId: 'searchTaskGet',
      tags,
      summary: 'Result of a search task',
      description: 'One SearchResults per page read once the task finished with 20000; the first call after completion marks it collected.',
      auth: 'required',
      path: taskGetParams,
      ok: jsonOk('The task, with its SearchResults when finished with 20000.', envelopeOf('SearchTaskGetResponse', searchResults, [STATUS.OK, STATUS.TASK_NOT_READY, STATUS.SOURCE_UNAVAILABLE])),
      responses: { 404: errorResponse([STATUS.NOT_FOUND], 'Unknown search task id (product task ids are not found here).') },
    }),
  },
  '/v1/retail/search/live': {
    post: operation({
      operationId: 'searchLive',
      tags,
      summary: 'Search one keyword now',
      description: 'Exactly one element, results page 1, charged the plan\'s `search_live` rate. A read less than 60 minutes old answers at once; otherwise the page is read within a 60-second budget, after which the task answers 50301 and is not charged.',
      auth: 'required',
      body: taskArrayBody(searchLiveTask, 1),
      header: idempotencyHeader,
      ok: jsonOk('The task with its SearchResults.', envelopeOf('SearchLiveResponse', searchResults, [STATUS.OK, STATUS.SOURCE_UNAVAILABLE])),
      responses: { 402: errorResponse([STATUS.PAYMENT_REQUIRED]), 403: errorResponse([STATUS.FEATURE_NOT_AVAILABLE], 'live is not on the plan.'), 409: IDEMPOTENCY_CONFLICT },
    }),
  },
  '/v1/retail/search/rank_history': {
    post: operation({
      operationId: 'searchRankHistory',
      tags,
      summary: 'Where a product stood for a keyword',
      description: 'Per element (1 to 100): the stored reads of `keyword` on `marketplace` over the last `days` (1 to 365, default 30), newest first, each with the position, organic position and sponsored flag of `asin` (null when absent). Charged per element like product history.',
      auth: 'required',
      body: taskArrayBody(rankHistoryTask),
      ok: jsonOk('One task per element with its points.', envelopeOf('RankHistoryResponse', rankPoint, [STATUS.OK, STATUS.PAYMENT_REQUIRED, STATUS.INVALID_FIELD, STATUS.UNKNOWN_MARKETPLACE, STATUS.INVALID_ASIN, STATUS.INTERNAL_ERROR])),
      responses: { 402: PAYMENT_REQUIRED },
    }),
  },
};
