/**
 * Composition: serves the dashboard (dashboard/, built by Vite into dist/dashboard at the
 * repository root) under /app on the API's own origin, with koa-send:
 *
 * - `/app/assets/*`: the hashed bundle files, cached for a year (`immutable`: a new build has new names);
 * - any other GET or HEAD of `/app` or `/app/...`: the file when it exists, else index.html (the
 *   app routes on the path), `Cache-Control: no-cache` so a new build is picked up at once.
 *
 * The app's only server is /graphql on the same origin (Content-Security-Policy `connect-src 'self'`);
 * product images come from the marketplaces' image hosts. No authentication: the files are public,
 * the API key stays in the browser and goes with each GraphQL request.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Middleware } from 'koa';
import send from 'koa-send';
import type { AppState } from './rest/context.js';

/** The repository (or image) root: the nearest folder above this module holding package.json. */
function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** Where `vite build` writes the dashboard (dashboard/vite.config.ts). */
export const DASHBOARD_DIST = path.join(projectRoot(), 'dist', 'dashboard');

const YEAR_MS = 365 * 24 * 3600 * 1000;
const CSP = "default-src 'self'; img-src 'self' https: data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'";

/** The /app middleware; other paths pass through. `root` defaults to {@link DASHBOARD_DIST}. */
export function dashboardRoutes(root: string = DASHBOARD_DIST): Middleware<AppState> {
  return async (ctx, next) => {
    if (ctx.path !== '/app' && !ctx.path.startsWith('/app/')) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const file = ctx.path.slice('/app/'.length);
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (file.startsWith('assets/')) {
      // A missing asset is a 404, never index.html (a script tag would parse HTML as JavaScript).
      await send(ctx, file, { root, immutable: true, maxage: YEAR_MS }).catch((error: { status?: number }) => {
        if (error.status !== 404) throw error;
        ctx.status = 404;
        ctx.type = 'text/plain';
        ctx.body = 'Not found';
      });
      return;
    }
    const served = file && !file.endsWith('/') ? await send(ctx, file, { root }).catch(() => undefined) : undefined;
    if (!served) {
      if (!fs.existsSync(path.join(root, 'index.html'))) {
        ctx.status = 503;
        ctx.type = 'text/plain';
        ctx.body = 'The dashboard is not built: run `npm run build` (npm start and npm test build it when needed).';
        return;
      }
      await send(ctx, 'index.html', { root });
    }
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Content-Security-Policy', CSP);
  };
}
