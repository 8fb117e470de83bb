/**
 * Reads a POST body as JSON (raw-body, 1 MiB limit → HTTP 413 / 40000; malformed JSON → 40000).
 */
import getRawBody from 'raw-body';
import type { Middleware } from 'koa';
import { AppError } from '../../core/errors.js';

/** Spec limit for every POST body (api-spec.md "Limits"). */
export const MAX_BODY_BYTES = 1_048_576;

declare module 'koa' {
  interface Request {
    /** The parsed JSON body of a POST. */
    json?: unknown;
  }
}

export function jsonBody(): Middleware {
  return async (ctx, next) => {
    if (ctx.method === 'POST') {
      let text: string;
      try {
        text = await getRawBody(ctx.req, { limit: MAX_BODY_BYTES, encoding: 'utf8', length: ctx.get('content-length') || undefined });
      } catch (error) {
        const status = (error as { status?: number }).status;
        if (status === 413) throw new AppError('BAD_REQUEST', { httpStatus: 413, message: 'Bad Request. Body larger than 1048576 bytes.' });
        throw new AppError('BAD_REQUEST', { cause: error });
      }
      try {
        ctx.request.json = JSON.parse(text);
      } catch {
        throw new AppError('BAD_REQUEST', { message: 'Bad Request. Body is not valid JSON.' });
      }
    }
    await next();
  };
}
