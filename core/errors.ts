/**
 * The typed domain error: a spec status code (api-spec.md "Errors") named by its table key, and
 * the message to answer. Services throw it for a request-level refusal and return it as the
 * outcome of one task for a task-level one; the presenters (api/rest, api/graphql) decide what it
 * looks like on the wire (REST: envelope and HTTP status from the table; GraphQL: extensions.code).
 */
import { STATUS, STATUS_CODES, statusKeyOf, statusMessage, type StatusCode, type StatusKey } from './domain/status-codes.js';

/** A refusal or failure carrying its spec code. */
export class DomainError extends Error {
  override name = 'DomainError';
  readonly key: StatusKey;
  readonly code: StatusCode;
  /** Seconds the client should wait before retrying (RATE_LIMITED); REST sends it as Retry-After. */
  readonly retryAfterSeconds: number | undefined;

  constructor(key: StatusKey, options: { message?: string; retryAfterSeconds?: number; cause?: unknown } = {}) {
    const row = STATUS_CODES[key];
    super(options.message ?? row.status_message, { cause: options.cause });
    this.key = key;
    this.code = row.status_code;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /**
   * INVALID_FIELD naming the field (api-spec.md: "the message names the field"); `detail`, when
   * given, follows the spec's message (`Invalid field: \`alerts[0].value\`. price_below needs a value`).
   */
  static invalidField(field: string, detail?: string): DomainError {
    const message = statusMessage(STATUS.INVALID_FIELD, field);
    return new DomainError('INVALID_FIELD', { message: detail ? `${message} ${detail}` : message });
  }

  /** The error of a code known only as a value (a stored task's final code, say). */
  static ofCode(code: StatusCode, message?: string): DomainError {
    return new DomainError(statusKeyOf(code), { message });
  }
}

/**
 * A request that failed after something was charged under it (rows of a bulk upload whose later
 * statement failed, say). It answers 50000 like any internal error, but its Idempotency-Key is not
 * freed: a retry with the same key must not pay for what the first attempt already charged
 * (api/rest/middleware/idempotency.ts). What was charged stays settled by its own rules (tasks
 * with their workflow, or started or refunded by the task reconciler).
 */
export class ChargedFailure extends DomainError {
  override name = 'ChargedFailure';

  constructor(cause: unknown) {
    super('INTERNAL_ERROR', { cause });
  }
}
