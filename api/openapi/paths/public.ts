/**
 * /openapi.json operations of the public endpoints (api-spec.md "System and public").
 */
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { accessRequestBody, credentialsParams } from '../../validation/requests.js';
import { envelopeOf, errorResponse, jsonOk, operation } from '../operations.js';
import { accessRequestReceipt, credentials } from '../resources.js';

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
      badRequest: [40000, 40501],
      ok: jsonOk('Received.', envelopeOf('AccessRequestResponse', accessRequestReceipt, [20000])),
      responses: { 429: errorResponse([40202], 'More than 5 requests within an hour from this IP address.') },
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
      ok: jsonOk('One task with the login and the API key.', envelopeOf('CredentialsResponse', credentials, [20000])),
      responses: { 404: errorResponse([40400], 'Unknown, already read or expired token.') },
    }),
  },
};
