/**
 * First middleware: times the request and turns every error into a spec envelope with its HTTP
 * status (api-spec.md "Errors"). Database faults (core/db/faults.ts: too slow, no free connection)
 * answer their own message and are logged as warnings; other unexpected errors become 50000 and
 * are logged as errors.
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../../core/logger.js';
import { databaseFaultError, databaseFaultOf } from '../../../core/db/faults.js';
import { DomainError } from '../../../core/errors.js';
import { STATUS } from '../../../core/domain/status-codes.js';
import { HttpError, headersOfError, httpStatusOfError } from '../http-error.js';
import { envelope } from '../envelope/envelope.js';
import type { AppState } from '../context.js';

export function errorEnvelope(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.startedAt = performance.now();
    ctx.state.requestId = ctx.get('x-request-id') || randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new DomainError('NOT_FOUND');
    } catch (error) {
      const domainError = toDomainError(error);
      const fault = databaseFaultOf(error);
      if (fault) logger.warn({ err: error, fault, requestId: ctx.state.requestId, path: ctx.path }, 'database fault');
      else if (domainError.code === STATUS.INTERNAL_ERROR) logger.error({ err: error, requestId: ctx.state.requestId, path: ctx.path }, 'unexpected error');
      ctx.status = httpStatusOfError(domainError);
      for (const [name, value] of Object.entries(headersOfError(domainError))) ctx.set(name, value);
      ctx.body = envelope(ctx.state.startedAt, [], domainError.code, domainError.message);
    }
  };
}

function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const fault = databaseFaultError(error);
  if (fault) return fault;
  const status = (error as { status?: number; statusCode?: number })?.status ?? (error as { statusCode?: number })?.statusCode;
  if (status === 413) return new HttpError('BAD_REQUEST', { httpStatus: 413, message: 'Bad Request. Body larger than 1048576 bytes.' });
  if (status === 405) return new HttpError('BAD_REQUEST', { httpStatus: 405, message: 'Bad Request. Method not allowed.' });
  if (status === 400) return new DomainError('BAD_REQUEST');
  return new DomainError('INTERNAL_ERROR', { cause: error });
}
