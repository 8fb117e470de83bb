/**
 * /openapi.json operations of the system endpoints (api-spec.md "System and public") and the
 * Prometheus metrics.
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { errorResponse, jsonOk, operation } from '../operations.js';
import { health, readiness } from '../resources.js';
import { STATUS } from '../../../../core/domain/status-codes.js';

const tags = ['system'];

/** /health, /ready and /metrics. */
export const systemPaths: ZodOpenApiPathsObject = {
  '/health': {
    get: operation({
      operationId: 'health',
      tags,
      summary: 'Liveness and queue visibility',
      auth: 'none',
      ok: jsonOk('The service is up.', health),
    }),
  },
  '/ready': {
    get: operation({
      operationId: 'ready',
      tags,
      summary: 'Readiness',
      description: 'Ready when the database answers and every migration is applied.',
      auth: 'none',
      ok: jsonOk('Ready.', readiness),
      responses: { 503: jsonOk('Not ready: the database did not answer or migrations are pending.', readiness) },
    }),
  },
  '/metrics': {
    get: operation({
      operationId: 'metrics',
      tags,
      summary: 'Prometheus metrics',
      description: 'Requests and latency by route, tasks by state, source reads by marketplace and outcome, webhook attempts, monitoring deliveries. '
        + 'Never public: served on this port only when METRICS_TOKEN is set, to `Authorization: Bearer <METRICS_TOKEN>`; '
        + 'with METRICS_LISTEN it is served on that address instead, and here answers 404.',
      auth: 'none',
      ok: { description: 'Prometheus text exposition format.', content: { 'text/plain': { schema: z.string() } } },
      responses: {
        401: errorResponse([STATUS.AUTH_FAILED], 'Without the Bearer METRICS_TOKEN.'),
        404: errorResponse([STATUS.NOT_FOUND], 'With METRICS_LISTEN set, or neither METRICS_TOKEN nor METRICS_LISTEN.'),
      },
    }),
  },
};
