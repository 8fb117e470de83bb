/**
 * GET /openapi.json (the OpenAPI 3.1 document of every route, api/rest/openapi/document.ts), GET /docs
 * (the reference rendered by Swagger UI) and GET /docs/assets/{file} (the page's files, served from
 * node_modules so the page needs no internet access). No authentication.
 */
import fs from 'node:fs';
import { Router } from '@koa/router';
import type { Config } from '../../../core/config.js';
import { DomainError } from '../../../core/errors.js';
import type { AppState } from '../context.js';
import { DOCS_ASSETS, docsPage } from '../openapi/docs-page.js';
import { createOpenApiDocument } from '../openapi/document.js';

/** Documents by PUBLIC_BASE_URL: generated once per process, not per app. */
const documents = new Map<string, { json: string; html: string }>();

function documentFor(serverUrl: string | undefined): { json: string; html: string } {
  const key = serverUrl ?? '';
  let cached = documents.get(key);
  if (!cached) {
    const document = createOpenApiDocument({ serverUrl });
    cached = { json: JSON.stringify(document), html: docsPage(document.info.title) };
    documents.set(key, cached);
  }
  return cached;
}

/** The reference router; the document's `servers` is PUBLIC_BASE_URL when set. */
export function openapiRoutes(config: Pick<Config, 'PUBLIC_BASE_URL'>): Router<AppState> {
  const router = new Router<AppState>();
  const { json, html } = documentFor(config.PUBLIC_BASE_URL);

  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = json;
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  });
  router.get('/docs/assets/:file', (ctx) => {
    const asset = Object.hasOwn(DOCS_ASSETS, ctx.params.file!) ? DOCS_ASSETS[ctx.params.file!] : undefined;
    if (!asset) throw new DomainError('NOT_FOUND');
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = 'text' in asset ? asset.text : fs.createReadStream(asset.file);
  });
  return router;
}
