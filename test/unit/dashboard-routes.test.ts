/**
 * api/dashboard-routes.ts over a real Koa server and a build folder made here: what /app answers
 * for the entry page, app paths, hashed assets, missing assets, escaping paths, other methods and
 * a missing build. test/integration/dashboard.test.ts drives the real build in Chromium.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRoutes } from '../../api/dashboard-routes.js';

const INDEX = '<!doctype html><title>app</title><script type="module" src="/app/assets/index-abc123.js"></script>';

async function serve(root: string): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Koa();
  app.use(dashboardRoutes(root));
  app.use((ctx) => { ctx.status = 404; ctx.body = 'api'; });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('dashboard routes (/app)', () => {
  let dir: string;
  let built: Awaited<ReturnType<typeof serve>>;
  let missing: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-dash-'));
    fs.mkdirSync(path.join(dir, 'build', 'assets'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'build', 'index.html'), INDEX);
    fs.writeFileSync(path.join(dir, 'build', 'assets', 'index-abc123.js'), 'console.log(1);');
    fs.writeFileSync(path.join(dir, 'secret.txt'), 'outside the build');
    built = await serve(path.join(dir, 'build'));
    missing = await serve(path.join(dir, 'nothing'));
  });
  afterAll(async () => {
    await built?.close();
    await missing?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers index.html, not cached, with the CSP, for /app, /app/ and any app path', async () => {
    for (const p of ['/app', '/app/', '/app/products/com/B07CL39Z8Q', '/app/tasks?x=1']) {
      const res = await fetch(built.url + p);
      expect([p, res.status, res.headers.get('content-type'), res.headers.get('cache-control')]).toEqual([p, 200, 'text/html; charset=utf-8', 'no-cache']);
      expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
      expect(await res.text()).toBe(INDEX);
    }
  });

  it('serves hashed assets as JavaScript cached for a year; a missing asset is 404, never the page', async () => {
    const asset = await fetch(`${built.url}/app/assets/index-abc123.js`);
    expect([asset.status, asset.headers.get('content-type'), asset.headers.get('cache-control')]).toEqual([200, 'text/javascript; charset=utf-8', 'max-age=31536000,immutable']);
    const head = await fetch(`${built.url}/app/assets/index-abc123.js`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect((await fetch(`${built.url}/app/assets/gone.js`)).status).toBe(404);
  });

  it('serves nothing outside the build, leaves other methods and paths to the API, and says when there is no build', async () => {
    const escape = await fetch(`${built.url}/app/..%2fsecret.txt`);
    expect(await escape.text()).toBe(INDEX);
    expect(await (await fetch(`${built.url}/app`, { method: 'POST' })).text()).toBe('api');
    expect(await (await fetch(`${built.url}/application`)).text()).toBe('api');
    const none = await fetch(`${missing.url}/app/tasks`);
    expect(none.status).toBe(503);
    expect(await none.text()).toContain('npm run build');
  });
});
