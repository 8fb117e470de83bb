/**
 * /openapi.json operations of the monitoring endpoints (api-spec.md "Monitoring endpoints").
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { monitoringAddKeywordTask, monitoringAddTask, monitoringDeleteTask, monitoringListQuery, taskArrayBody } from '../../../../core/validation/requests.js';
import { envelopeOf, errorResponse, jsonOk, operation } from '../operations.js';
import { keywordSubscription, listedKeywordSubscription } from '../keyword-subscription-resources.js';
import { listedSubscription, subscription } from '../resources.js';

/** A subscription of either kind (a keyword one has `kind: "search"`). */
const anySubscription = z.union([subscription, keywordSubscription]);
const anyListedSubscription = z.union([listedSubscription, listedKeywordSubscription]);
import { STATUS } from '../../../../core/domain/status-codes.js';

const tags = ['monitoring'];

/** Operations under /v1/retail/monitoring. */
export const monitoringPaths: ZodOpenApiPathsObject = {
  '/v1/retail/monitoring/add': {
    post: operation({
      operationId: 'monitoringAdd',
      tags,
      summary: 'Monitor products and keywords',
      description: 'Each element (1 to 100) creates a subscription, or updates frequency and tag (and `alerts` and `alert_url` when given) of the subscription with the same asin and marketplace. Free; each delivered observation is charged at the monitoring price. At most 10,000 monitored products per account (beyond: task-level 40000). `alerts` are change alerts: when a delivered observation fires a rule, one `change` event (schema ChangeEvent) is POSTed to `alert_url`, signed with `X-Signature` like a postback and carrying `X-Event-Id`, retried like every webhook, and listed by GET /v1/retail/monitoring/change_events and GET /v1/appendix/webhook_deliveries. A refused rule fails its task with 40501 naming it (`alerts[1].value`) and saying why. An element with `keyword` (MonitoringAddKeywordTask) monitors the results pages 1..`pages` of a keyword instead (one per account, keyword case-insensitive, and marketplace): each run is charged per page delivered at the monitoring search price (twice the monitoring price), and its rank rules (`rank_above`, `rank_below`, `rank_change`, `sponsored_change`) each judge one of its `track_asins`, named in the rule\'s `asin`. An element with both `asin` and `keyword` fails with 40501 `keyword`.',
      auth: 'required',
      body: taskArrayBody(z.union([monitoringAddTask, monitoringAddKeywordTask])),
      ok: jsonOk('One task per element with its Subscription.', envelopeOf('MonitoringAddResponse', anySubscription, [STATUS.OK, STATUS.BAD_REQUEST, STATUS.INVALID_FIELD, STATUS.UNKNOWN_MARKETPLACE, STATUS.INVALID_ASIN, STATUS.SOURCE_UNAVAILABLE])),
    }),
  },
  '/v1/retail/monitoring/delete': {
    post: operation({
      operationId: 'monitoringDelete',
      tags,
      summary: 'Stop monitoring products',
      description: 'Deletes each named subscription (1 to 100 elements: by `id`, `asin` + `marketplace`, or `keyword` + `marketplace`); its observations stay in history. Free.',
      auth: 'required',
      body: taskArrayBody(monitoringDeleteTask),
      ok: jsonOk('One task per element with the deleted Subscription; 40400 for an unknown one.', envelopeOf('MonitoringDeleteResponse', anySubscription, [STATUS.OK, STATUS.NOT_FOUND, STATUS.INVALID_FIELD, STATUS.UNKNOWN_MARKETPLACE, STATUS.INVALID_ASIN])),
    }),
  },
  '/v1/retail/monitoring/list': {
    get: operation({
      operationId: 'monitoringList',
      tags,
      summary: 'List subscriptions',
      description: 'Active and paused subscriptions of both kinds, oldest first: a product subscription with its latest delivered observation (`latest_observation`), a keyword subscription (`kind: "search"`) with the SearchResults of its last delivered run (`latest_results`).',
      auth: 'required',
      query: monitoringListQuery,
      ok: jsonOk('One task whose result lists the subscriptions.', envelopeOf('MonitoringListResponse', anyListedSubscription, [STATUS.OK])),
      responses: { 400: errorResponse([STATUS.INVALID_FIELD], 'A query parameter is invalid; the message names it.') },
    }),
  },
};
