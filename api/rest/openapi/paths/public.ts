/**
 * /openapi.json operations of the public endpoints (api-spec.md "System and public").
 */
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { accessRequestBody, credentialsParams } from '../../../../core/validation/requests.js';
import { envelopeOf, errorResponse, jsonOk, operation } from '../operations.js';
import { accessRequestReceipt, credentials } from '../resources.js';
import { STATUS } from '../../../../core/domain/status-codes.js';

const tags = ['public'];

/** Operations under /v1/public. */
export const publicPaths: ZodOpenApiPathsObject = {
  '/v1/public/access_request': {
    post: operation({
      operationId: 'accessRequest',
      tags,
      summary: 'Ask for an account',
      description: 'Stores the request; an administrator later creates the account and e-mails a one-time link to the credentials. At most 5 requests per hour per IP address.',
      auth: 'none',
      body: accessRequestBody,
      badRequest: [STATUS.BAD_REQUEST, STATUS.INVALID_FIELD],
      ok: jsonOk('Received.', envelopeOf('AccessRequestResponse', accessRequestReceipt, [STATUS.OK])),
      responses: { 429: errorResponse([STATUS.RATE_LIMITED], 'More than 5 requests within an hour from this IP address.') },
    }),
  },
  '/v1/public/credentials/{token}': {
    get: operation({
      operationId: 'credentials',
      tags,
      summary: 'Read the credentials of an approved request, once',
      description: 'The link e-mailed after approval; it answers once, within 7 days. Never cached.',
      auth: 'none',
      path: credentialsParams,
      ok: jsonOk('One task with the login and the API key.', envelopeOf('CredentialsResponse', credentials, [STATUS.OK])),
      responses: { 404: errorResponse([STATUS.NOT_FOUND], 'Unknown, already read or expired token.') },
    }),
  },
};
