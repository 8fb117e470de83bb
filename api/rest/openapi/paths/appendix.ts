/**
 * /openapi.json operations of the appendix endpoints (api-spec.md "Appendix endpoints").
 */
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { keyCreateTask, keyIdParams, ledgerQuery, taskArrayBody, usageQuery } from '../../../../core/validation/requests.js';
import { envelopeOf, errorResponse, jsonOk, operation } from '../operations.js';
import { accountData, createdKey, ledgerPage, marketplaceRow, marketplaceStatus, revokedKey, statusCodeRow, usageReport } from '../resources.js';
import { STATUS } from '../../../../core/domain/status-codes.js';

const tags = ['appendix'];

/** Operations under /v1/appendix. */
export const appendixPaths: ZodOpenApiPathsObject = {
  '/v1/appendix/user_data': {
    get: operation({
      operationId: 'userData',
      tags,
      summary: 'Account data',
      description: 'Login, e-mail, balance, plan, rate limits, price table, usage today and this month, active keys and the webhook secret.',
      auth: 'required',
      ok: jsonOk('One task whose result holds the account.', envelopeOf('UserDataResponse', accountData, [STATUS.OK])),
    }),
  },
  '/v1/appendix/usage': {
    get: operation({
      operationId: 'usage',
      tags,
      summary: 'Usage per day and endpoint',
      auth: 'required',
      query: usageQuery,
      ok: jsonOk('One task whose result holds the usage report.', envelopeOf('UsageResponse', usageReport, [STATUS.OK])),
      responses: { 400: errorResponse([STATUS.INVALID_FIELD], 'A bad date, date_from after date_to or a range over 366 days; the message names the field.') },
    }),
  },
  '/v1/appendix/ledger': {
    get: operation({
      operationId: 'ledger',
      tags,
      summary: 'Ledger entries and reservations',
      description: 'Every charge, refund and top-up of the range (UTC days, as usage), newest first, with the balance after it; '
        + 'a reservation (a charge taken before its result) shows its settlement, a refund the reservation it gave back. Free.',
      auth: 'required',
      query: ledgerQuery,
      ok: jsonOk('One task whose result holds a page of the ledger.', envelopeOf('LedgerResponse', ledgerPage, [STATUS.OK])),
      responses: { 400: errorResponse([STATUS.INVALID_FIELD], 'A bad date, range, limit or offset; the message names the field.') },
    }),
  },
  '/v1/appendix/keys': {
    post: operation({
      operationId: 'createKeys',
      tags,
      summary: 'Create API keys',
      description: 'One new key per element (1 to 100); at most 20 active keys per account (beyond: task-level 40000). The full key appears only in this answer.',
      auth: 'required',
      body: taskArrayBody(keyCreateTask),
      badRequest: [STATUS.BAD_REQUEST, STATUS.TOO_MANY_TASKS, STATUS.INVALID_FIELD],
      ok: jsonOk('One task per element with its key.', envelopeOf('CreateKeysResponse', createdKey, [STATUS.OK, STATUS.BAD_REQUEST, STATUS.INVALID_FIELD])),
    }),
  },
  '/v1/appendix/keys/{key_id}': {
    delete: operation({
      operationId: 'revokeKey',
      tags,
      summary: 'Revoke an API key',
      description: 'Requests with the key then fail with 40101 at once. The key authenticating the request can be revoked only while the account has another active key (otherwise task-level 40000).',
      auth: 'required',
      path: keyIdParams,
      ok: jsonOk('One task with the revoked key.', envelopeOf('RevokeKeyResponse', revokedKey, [STATUS.OK, STATUS.BAD_REQUEST])),
      responses: { 400: errorResponse([STATUS.INVALID_FIELD], 'key_id is not an integer from 1 to 2147483647.'), 404: errorResponse([STATUS.NOT_FOUND], 'Not an active key of the account.') },
    }),
  },
  '/v1/appendix/marketplaces': {
    get: operation({
      operationId: 'marketplaces',
      tags,
      summary: 'The 12 marketplaces',
      auth: 'optional',
      ok: jsonOk('One task listing the marketplaces.', envelopeOf('MarketplacesResponse', marketplaceRow, [STATUS.OK])),
    }),
  },
  '/v1/appendix/status': {
    get: operation({
      operationId: 'status',
      tags,
      summary: 'Availability per marketplace',
      description: 'Aggregates of the last 24 hours per marketplace.',
      auth: 'optional',
      ok: jsonOk('One task with one row per marketplace.', envelopeOf('StatusResponse', marketplaceStatus, [STATUS.OK])),
    }),
  },
  '/v1/appendix/errors': {
    get: operation({
      operationId: 'errors',
      tags,
      summary: 'The status codes',
      description: 'Free of charge.',
      auth: 'optional',
      ok: jsonOk('One task with one row per status code.', envelopeOf('ErrorsResponse', statusCodeRow, [STATUS.OK])),
    }),
  },
};
