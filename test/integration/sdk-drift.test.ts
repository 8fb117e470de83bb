/**
 * The SDK's types cannot drift from the API: clients/typescript/src/schema.d.ts must be exactly
 * what openapi-typescript generates from the running service's /openapi.json. When this fails,
 * run `npm run -w clients/typescript generate -- <api>/openapi.json` and commit the result.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTypes, SCHEMA_FILE } from '../../clients/typescript/scripts/generate.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('the SDK types match /openapi.json', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('regenerates src/schema.d.ts from the served document without a difference', async () => {
    const res = await fetch(`${app.url}/openapi.json`);
    expect(res.status).toBe(200);
    const generated = await generateTypes(await res.json() as Record<string, unknown>);
    expect(generated).toContain('"/v1/retail/product/task_post"');
    expect(generated === fs.readFileSync(SCHEMA_FILE, 'utf8')).toBe(true);
  });
});
