/**
 * Typed errors carrying their spec status code (api-spec.md "Errors"). Request-level errors are
 * thrown and turned into envelopes by the error middleware; task-level outcomes are `TaskError`s
 * returned in a task.
 */
import { STATUS_CODES, statusKeyOf, statusMessage, type StatusKey } from './status-codes.js';

/** An error answered at request level: HTTP status and five-digit code from the spec table. */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: number;
  readonly httpStatus: number;
  /** Extra response headers, e.g. Retry-After for 40202. */
  readonly headers: Record<string, string>;

  constructor(key: StatusKey, options: { message?: string; httpStatus?: number; headers?: Record<string, string>; cause?: unknown } = {}) {
    const row = STATUS_CODES[key];
    super(options.message ?? row.status_message, { cause: options.cause });
    this.code = row.status_code;
    this.httpStatus = options.httpStatus ?? row.http_status;
    this.headers = options.headers ?? {};
  }

  /** 40501 naming the field (api-spec.md: "the message names the field"). */
  static invalidField(field: string): AppError {
    return new AppError('INVALID_FIELD', { message: statusMessage(40501, field) });
  }

  /** The same code and message at request level, with the table's HTTP status. */
  static fromTaskError(error: TaskError): AppError {
    return new AppError(statusKeyOf(error.code), { message: error.message });
  }
}

/** A task-level failure: the code and message placed on one task of an HTTP 200 envelope. */
export class TaskError extends Error {
  override name = 'TaskError';
  constructor(
    readonly code: number,
    message?: string,
  ) {
    super(message ?? statusMessage(code));
  }

  static invalidField(field: string): TaskError {
    return new TaskError(40501, statusMessage(40501, field));
  }
}
