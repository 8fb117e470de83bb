/**
 * GET /openapi.json and GET /docs (issue 8): the document is valid OpenAPI 3.1, it covers exactly
 * the routes buildApp registers, its request schemas accept and refuse what the API accepts and
 * refuses, and the rendered reference loads only files the app serves itself.
 */
import type Koa from 'koa';
import type { Router } from '@koa/router';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { UNDOCUMENTED_ROUTES } from '../../api/rest/openapi/document.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { apiClient, type ApiClient } from '../support/http.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let app: TestApp;
let api: ApiClient;
let doc: any;

beforeAll(async () => {
  app = await startTestApp({ database: 'pglite' });
  const account = await createAccount(app.db, { login: 'reader', email: 'reader@example.com', balance: 100 });
  api = apiClient(app.url, { login: 'reader', key: account.api_key });
  const res = await apiClient(app.url).get('/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = res.body;
});

afterAll(async () => {
  await app?.close();
});

/** Every (method, path) the app's routers registered; `:param` written `{param}` as in OpenAPI. */
function registeredRoutes(koa: Koa): { method: string; path: string }[] {
  const routers = koa.middleware.flatMap((mw) => {
    const router = (mw as { router?: Router }).router;
    return router ? [router] : [];
  });
  return routers.flatMap((router) => router.stack)
    .filter((layer) => layer.methods.length > 0)
    .flatMap((layer) => layer.methods.map((method) => ({ method, path: String(layer.path).replace(/:(\w+)/g, '{$1}') })));
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // The validator does refuse a broken document.
    const broken = structuredClone(doc);
    broken.paths['/health'].get.responses = 'none';
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('documents every route buildApp registers, and no other', () => {
    const routes = registeredRoutes(app.koa as unknown as Koa);
    const keys = new Set(routes.map((r) => `${r.method} ${r.path}`));
    expect(keys).toContain('POST /v1/retail/product/task_post');
    expect(keys).toContain('GET /v1/appendix/status');
    expect(keys).toContain('DELETE /v1/appendix/keys/{key_id}');

    const excused = (method: string, path: string) => UNDOCUMENTED_ROUTES.some((u) =>
      (u.path === '*' || u.path === path) && (u.method === '*' || u.method === method));
    const undocumented = routes
      .filter((r) => !doc.paths[r.path]?.[r.method.toLowerCase()] && !excused(r.method, r.path))
      .map((r) => `${r.method} ${r.path}`);
    expect(undocumented).toEqual([]);

    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, item]) => Object.keys(item).filter((k) => METHODS.includes(k)).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.filter((key) => !keys.has(key))).toEqual([]);
  });

  it('names PUBLIC_BASE_URL as its server when set, and no server otherwise', async () => {
    expect(doc.servers).toBeUndefined();
    const other = await app.another({ env: { PUBLIC_BASE_URL: 'https://api.example.com/' } });
    try {
      const res = await apiClient(other.url).get('/openapi.json');
      expect(res.body.servers).toEqual([{ url: 'https://api.example.com' }]);
    } finally {
      await other.close();
    }
  });

  it('declares the security of each route as the spec does', () => {
    const schemes = (path: string, method: string) => (doc.paths[path][method].security as Record<string, unknown>[]).map((s) => Object.keys(s).join('+') || 'anonymous');
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['basicAuth', 'bearerAuth']);
    expect(schemes('/v1/retail/product/task_post', 'post')).toEqual(['basicAuth', 'bearerAuth']);
    expect(schemes('/v1/appendix/status', 'get')).toEqual(['basicAuth', 'bearerAuth', 'anonymous']);
    expect(schemes('/health', 'get')).toEqual([]);
    expect(schemes('/v1/public/access_request', 'post')).toEqual([]);
  });
});

describe('the task_post request schema', () => {
  const long = 'x'.repeat(256);
  const cases: { name: string; body: unknown; code: number }[] = [
    { name: 'a valid task', body: [{ asin: 'B0CHX1W1XY', marketplace: 'com' }], code: 20100 },
    { name: 'a lower-case ASIN, an alias, a tag and an unknown field', body: [{ asin: ' b0chx1w1xy ', marketplace: 'US', tag: 't', note: 1 }], code: 20100 },
    { name: 'priority 3', body: [{ asin: 'B0CHX1W1XY', marketplace: 'com', priority: 3 }], code: 40501 },
    { name: 'a tag of 256 characters', body: [{ asin: 'B0CHX1W1XY', marketplace: 'com', tag: long }], code: 40501 },
    { name: 'a bad ASIN', body: [{ asin: 'B0BAD', marketplace: 'com' }], code: 40503 },
    { name: 'an ASIN that is not a string', body: [{ asin: 1234567890, marketplace: 'com' }], code: 40501 },
    { name: 'an unknown marketplace', body: [{ asin: 'B0CHX1W1XY', marketplace: 'xx' }], code: 40502 },
    { name: 'an empty array', body: [], code: 40000 },
    { name: 'an object instead of an array', body: { asin: 'B0CHX1W1XY', marketplace: 'com' }, code: 40000 },
    { name: '101 tasks', body: Array.from({ length: 101 }, () => ({ asin: 'B0CHX1W1XY', marketplace: 'com' })), code: 40001 },
  ];
  let validate: (body: unknown) => boolean;

  beforeAll(() => {
    // The body schema with the document's components as $defs: a standalone JSON Schema 2020-12.
    const body = doc.paths['/v1/retail/product/task_post'].post.requestBody.content['application/json'].schema;
    const standalone = JSON.parse(JSON.stringify({ ...body, $defs: doc.components.schemas }).replaceAll('#/components/schemas/', '#/$defs/'));
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats.default(ajv);
    validate = ajv.compile(standalone);
  });

  it.each(cases)('accepts or refuses $name as the API does', async ({ body, code }) => {
    const res = await api.post('/v1/retail/product/task_post', body);
    const answered = res.status === 200 ? res.body.tasks[0].status_code : res.body.status_code;
    expect(answered).toBe(code);
    expect(validate(body)).toBe(res.status === 200 && answered < 40000);
  });
});

describe('GET /docs', () => {
  it('answers an HTML page whose scripts and styles the app serves itself', async () => {
    const res = await fetch(`${app.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    for (const asset of assets) {
      expect(asset).toMatch(/^\/[^/]/);
      const file = await fetch(`${app.url}${asset}`);
      expect(file.status, asset).toBe(200);
      expect((await file.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
    }
    const scripts = await Promise.all(assets.filter((a) => a.endsWith('.js')).map(async (a) => (await fetch(`${app.url}${a}`)).text()));
    expect(scripts.some((s) => s.includes("url: '/openapi.json'"))).toBe(true);
    expect((await fetch(`${app.url}/docs/assets/package.json`)).status).toBe(404);
  });
});
