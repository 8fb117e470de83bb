/**
 * /openapi.json operations of the API reference itself: the document, the rendered page and the
 * page's files (api/rest/openapi/docs-page.ts).
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { DOCS_ASSETS } from '../docs-page.js';
import { errorResponse, operation } from '../operations.js';
import { STATUS } from '../../../../core/domain/status-codes.js';

const tags = ['reference'];

/** /openapi.json, /docs and /docs/assets/{file}. */
export const referencePaths: ZodOpenApiPathsObject = {
  '/openapi.json': {
    get: operation({
      operationId: 'openapi',
      tags,
      summary: 'This OpenAPI 3.1 document',
      auth: 'none',
      ok: { description: 'The document.', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
    }),
  },
  '/docs': {
    get: operation({
      operationId: 'docs',
      tags,
      summary: 'The API reference rendered from this document',
      auth: 'none',
      ok: { description: 'An HTML page (Swagger UI); its files come from /docs/assets.', content: { 'text/html': { schema: z.string() } } },
    }),
  },
  '/docs/assets/{file}': {
    get: operation({
      operationId: 'docsAsset',
      tags,
      summary: 'A file of the reference page',
      auth: 'none',
      path: z.object({ file: z.enum(Object.keys(DOCS_ASSETS) as [string, ...string[]]).meta({ description: 'File name.' }) }),
      ok: {
        description: 'The file.',
        content: Object.fromEntries([...new Set(Object.values(DOCS_ASSETS).map((a) => a.type.split(';')[0]!))].map((type) => [type, { schema: z.string() }])),
      },
      responses: { 404: errorResponse([STATUS.NOT_FOUND], 'Not a file of the page.') },
    }),
  },
};
