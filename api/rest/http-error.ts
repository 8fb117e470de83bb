/**
 * How a domain error looks at HTTP level in the REST presenter: the status from the table
 * (api-spec.md "Errors"), Retry-After for RATE_LIMITED, and the few answers whose HTTP status the
 * spec sets apart from the table (405 wrong method, 409 Idempotency-Key conflict, 413 body too
 * large, all with code BAD_REQUEST).
 */
import { DomainError } from '../../core/errors.js';
import { httpStatusOf, type StatusKey } from '../../core/domain/status-codes.js';

/** A domain error answered with an HTTP status or headers of its own (see the module comment). */
export class HttpError extends DomainError {
  override name = 'HttpError';
  readonly httpStatus: number | undefined;
  readonly headers: Record<string, string>;

  constructor(key: StatusKey, options: { message?: string; httpStatus?: number; headers?: Record<string, string>; retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(key, options);
    this.httpStatus = options.httpStatus;
    this.headers = options.headers ?? {};
  }
}

/** The HTTP status of a request-level answer carrying `error`. */
export function httpStatusOfError(error: DomainError): number {
  return (error instanceof HttpError ? error.httpStatus : undefined) ?? httpStatusOf(error.code);
}

/** The response headers of a request-level answer carrying `error` (Retry-After in seconds). */
export function headersOfError(error: DomainError): Record<string, string> {
  const headers: Record<string, string> = error instanceof HttpError ? { ...error.headers } : {};
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
  return headers;
}
