/**
 * Building blocks of /openapi.json operations: the envelope of api-spec.md "Envelope" / "Task"
 * around each endpoint's result rows, the error responses (the envelope without tasks, one HTTP
 * status per request-level code of "Errors"), and `operation()`, which adds to every operation the
 * answers the spec gives all endpoints of its kind: authenticated → 401 (40100, 40101, 40102) and
 * 429 (40202, Retry-After); POST → 413 and 400 (40000...); everything → 500 (50000).
 */
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { STATUS, STATUS_CODES, statusMessage, type StatusCode } from '../../../core/domain/status-codes.js';

/** Security scheme names of the document (components.securitySchemes). */
export const SECURITY_SCHEMES = {
  basicAuth: { type: 'http', scheme: 'basic', description: 'HTTP Basic with `login:api_key`.' },
  bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key alone identifies the account.' },
} as const;

/** How an endpoint authenticates (api-spec.md "Authentication" 2). */
export type AuthMode = 'required' | 'optional' | 'none';

const SECURITY: Record<AuthMode, Record<string, string[]>[]> = {
  required: [{ basicAuth: [] }, { bearerAuth: [] }],
  // An empty requirement: the call may also be anonymous.
  optional: [{ basicAuth: [] }, { bearerAuth: [] }, {}],
  none: [],
};

const envelopeFields = {
  version: z.string().meta({ description: 'API version of the envelope.', examples: ['0.1.0'] }),
  status_code: z.number().int().meta({ description: 'Request-level code (see GET /v1/appendix/errors).', examples: [STATUS.OK] }),
  status_message: z.string().meta({ examples: ['Ok.'] }),
  time: z.string().regex(/^\d+\.\d{4} sec\.$/).meta({ description: 'Elapsed time.', examples: ['0.0123 sec.'] }),
  cost: z.number().min(0).meta({ description: 'USD charged for the whole request.' }),
  tasks_count: z.number().int().min(0),
  tasks_error: z.number().int().min(0).meta({ description: 'Tasks whose status_code is 40000 or above.' }),
};

/**
 * The 200 envelope of an endpoint whose tasks carry `result` rows of `row` (null: never rows).
 * @param id component name, e.g. `TaskPostResponse`.
 * @param codes the task-level codes the endpoint's tasks can carry, for the description.
 */
export function envelopeOf(id: string, row: z.ZodType | null, codes: readonly StatusCode[]) {
  const task = z.object({
    id: z.string().meta({ description: 'Task id: a UUID whose first 8 characters are the UTC MMDDHHmm of creation.' }),
    status_code: z.number().int().meta({ description: `Task-level code: ${codes.map((c) => `${c} ${statusMessage(c)}`).join('; ')}` }),
    status_message: z.string(),
    time: envelopeFields.time,
    cost: z.number().min(0).meta({ description: 'USD charged for this task.' }),
    result_count: z.number().int().min(0),
    path: z.array(z.string()).meta({ description: 'Path segments of the endpoint.' }),
    data: z.record(z.string(), z.unknown()).meta({ description: 'The task as received, plus `api` and `function`.' }),
    result: row ? z.array(row).nullable().meta({ description: 'Null when the task failed or is not finished.' }) : z.null(),
  });
  return z.object({ ...envelopeFields, tasks: z.array(task) }).meta({ id });
}

/** A request-level error: the envelope without tasks. */
export const errorEnvelope = z.object({ ...envelopeFields, tasks: z.array(z.unknown()).max(0) })
  .meta({ id: 'ErrorEnvelope', description: 'A request refused as a whole: `status_code` says why, `tasks` is empty.' });

const retryAfter = z.object({ 'Retry-After': z.string().regex(/^\d+$/).meta({ description: 'Seconds to wait.' }) });

/** The error response of one HTTP status listing the codes it carries (api-spec.md "Errors"). */
export function errorResponse(codes: readonly StatusCode[], note?: string): ZodOpenApiResponseObject {
  const text = codes.map((c) => `${c} ${statusMessage(c)}`).join(' · ');
  return {
    description: note ? `${text} ${note}` : text,
    ...(codes.includes(STATUS_CODES.RATE_LIMITED.status_code) ? { headers: retryAfter } : {}),
    content: { 'application/json': { schema: errorEnvelope } },
  };
}

/** What an operation declares; the common answers are added by `operation()`. */
export interface OperationSpec {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  auth: AuthMode;
  /** Task-style body schema (POST). */
  body?: z.ZodType;
  query?: z.ZodObject;
  path?: z.ZodObject;
  /** Request headers the operation reads (beyond Authorization). */
  header?: z.ZodObject;
  /** The 200 answer. */
  ok: ZodOpenApiResponseObject;
  /** Other answers of this endpoint (e.g. 402, 403, 404, 503), and the 400 codes of a GET with parameters. */
  responses?: Record<string, ZodOpenApiResponseObject>;
  /** Codes of the 400 answer of a POST; default 40000, 40001, 40501, 40502, 40503. */
  badRequest?: readonly StatusCode[];
}

const POST_400 = [STATUS.BAD_REQUEST, STATUS.TOO_MANY_TASKS, STATUS.INVALID_FIELD, STATUS.UNKNOWN_MARKETPLACE, STATUS.INVALID_ASIN];

/** A JSON 200 answer of `schema`. */
export function jsonOk(description: string, schema: z.ZodType): ZodOpenApiResponseObject {
  return { description, content: { 'application/json': { schema } } };
}

/** One operation of the document with the answers common to its kind (see the module comment). */
export function operation(spec: OperationSpec): ZodOpenApiOperationObject {
  const responses: Record<string, ZodOpenApiResponseObject> = { 200: spec.ok };
  if (spec.body) {
    responses[400] = errorResponse(spec.badRequest ?? POST_400);
    responses[413] = errorResponse([STATUS.BAD_REQUEST], 'The body is larger than 1048576 bytes.');
  }
  if (spec.auth !== 'none') {
    responses[401] = errorResponse([STATUS.AUTH_FAILED, STATUS.KEY_REVOKED, STATUS.ACCOUNT_DISABLED], spec.auth === 'optional' ? 'Only when a key is sent.' : undefined);
    responses[429] = errorResponse([STATUS.RATE_LIMITED], 'Per-account requests or tasks per minute exceeded.');
  }
  Object.assign(responses, spec.responses);
  responses[500] = errorResponse([STATUS.INTERNAL_ERROR], 'Retry with backoff.');
  return {
    operationId: spec.operationId,
    tags: spec.tags,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    security: SECURITY[spec.auth],
    ...(spec.query || spec.path || spec.header
      ? { requestParams: { ...(spec.query ? { query: spec.query } : {}), ...(spec.path ? { path: spec.path } : {}), ...(spec.header ? { header: spec.header } : {}) } }
      : {}),
    ...(spec.body ? { requestBody: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
    responses,
  };
}
