/**
 * First middleware: times the request and turns every error into a spec envelope with its HTTP
 * status (api-spec.md "Errors"). Database faults (core/db/faults.ts: too slow, no free connection)
 * answer their own message and are logged as warnings; other unexpected errors become 50000 and
 * are logged as errors.
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../core/logger.js';
import { databaseFaultError, databaseFaultOf } from '../../core/db/faults.js';
import { AppError } from '../../core/errors.js';
import { envelope } from '../envelope.js';
import type { AppState } from '../context.js';

export function errorEnvelope(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.startedAt = performance.now();
    ctx.state.requestId = ctx.get('x-request-id') || randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new AppError('NOT_FOUND');
    } catch (error) {
      const appError = toAppError(error);
      const fault = databaseFaultOf(error);
      if (fault) logger.warn({ err: error, fault, requestId: ctx.state.requestId, path: ctx.path }, 'database fault');
      else if (appError.code === 50000) logger.error({ err: error, requestId: ctx.state.requestId, path: ctx.path }, 'unexpected error');
      ctx.status = appError.httpStatus;
      for (const [name, value] of Object.entries(appError.headers)) ctx.set(name, value);
      ctx.body = envelope(ctx.state.startedAt, [], appError.code, appError.message);
    }
  };
}

function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fault = databaseFaultError(error);
  if (fault) return fault;
  const status = (error as { status?: number; statusCode?: number })?.status ?? (error as { statusCode?: number })?.statusCode;
  if (status === 413) return new AppError('BAD_REQUEST', { httpStatus: 413, message: 'Bad Request. Body larger than 1048576 bytes.' });
  if (status === 405) return new AppError('BAD_REQUEST', { httpStatus: 405, message: 'Bad Request. Method not allowed.' });
  if (status === 400) return new AppError('BAD_REQUEST');
  return new AppError('INTERNAL_ERROR', { cause: error });
}
