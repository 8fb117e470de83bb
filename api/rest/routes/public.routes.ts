/**
 * Public endpoints without authentication (api-spec.md "System and public"):
 * POST /v1/public/access_request and GET /v1/public/credentials/:token (the one-time link an
 * administrator's approval sends).
 */
import { Router } from '@koa/router';
import type { Db } from '../../../core/db/db.js';
import type { AppState } from '../context.js';
import { readCredentials, submitAccessRequest } from '../../services/access-requests.js';
import { renderEnvelope } from '../envelope/envelope.js';

export function publicRoutes(db: Db): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/v1/public' });

  router.post('/access_request', async (ctx) => {
    ctx.body = renderEnvelope(await submitAccessRequest(db, ctx.request.json, ctx.ip), ctx.state.startedAt);
  });

  router.get('/credentials/:token', async (ctx) => {
    // The answer holds an API key: never cached, never sent on as a referrer.
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.body = renderEnvelope(await readCredentials(db, ctx.params.token!), ctx.state.startedAt);
  });

  return router;
}
