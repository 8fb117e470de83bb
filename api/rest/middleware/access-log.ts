/**
 * One log line per request (`request`, level info) once it is answered: method, URL, headers and
 * client address (`ctx.ip`: the connection's peer, or the X-Forwarded-For address of the
 * TRUST_PROXY hops), then HTTP status, envelope code, account id, request id and duration in ms.
 * The secrets it carries (Authorization header, the token of a credentials link) are removed by the
 * logger's redaction (core/logger.ts), so every line is safe to ship.
 */
import type { Middleware } from 'koa';
import type { Logger } from '../../../core/logger.js';
import type { AppState } from '../context.js';

/** The `status_code` of an envelope body, else undefined (GraphQL, documents, metrics). */
function envelopeCode(body: unknown): number | undefined {
  const code = (body as { status_code?: unknown } | null | undefined)?.status_code;
  return typeof code === 'number' ? code : undefined;
}

/** Koa middleware placed before the error-envelope middleware, so it sees the final answer. */
export function accessLog(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      logger.info({
        req: { method: ctx.method, url: ctx.originalUrl, headers: ctx.headers, ip: ctx.ip },
        res: { status: ctx.status, code: envelopeCode(ctx.body) },
        requestId: ctx.state.requestId,
        accountId: ctx.state.account?.id,
        ms: Math.round((performance.now() - started) * 10) / 10,
      }, 'request');
    }
  };
}
