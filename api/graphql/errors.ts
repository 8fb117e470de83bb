/**
 * GraphQL errors carry the REST five-digit code in `extensions.code` (api-spec.md "Errors").
 *
 * - Request-level answers set the HTTP status too, through yoga's `extensions.http` (stripped from
 *   the response): authentication 401 (40100 / 40101 / 40102), rate limit 429 with Retry-After
 *   (40202), a charged field over GET 405 (40000).
 * - GraphQL's own refusals of the request (syntax, validation, variables, depth, complexity) are
 *   40000; HTTP 400 under `application/graphql-response+json`, 200 under `application/json`, as
 *   GraphQL over HTTP specifies.
 * - A domain error raised in a resolver (AppError: 40200, 40400, 40501, ...) fails that field; the
 *   response stays HTTP 200 with the other fields' data, as GraphQL does.
 * - A database fault (core/db/faults.ts) answers its own message: 50000 "the database did not answer
 *   in time" / "no connection was free", 40000 for text it cannot store.
 * - Anything else is masked: "Internal error." with 50000, logged, never its message.
 */
import { GraphQLError } from './graphql-js.js';
import { databaseFaultError } from '../../core/db/faults.js';
import { DomainError } from '../../core/errors.js';
import { httpStatusOf, STATUS, statusMessage } from '../../core/domain/status-codes.js';

/** The first DomainError in an error's chain (`originalError`, then `cause`). */
export function domainErrorOf(error: unknown): DomainError | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 8; depth++) {
    if (e instanceof DomainError || e instanceof DomainError) return e;
    e = e instanceof GraphQLError ? e.originalError : (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A request-level error: code and message of the DomainError, HTTP status from the table, Retry-After when it has one. */
export function requestError(error: DomainError): GraphQLError {
  const headers: Record<string, string> = error.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(error.retryAfterSeconds) };
  return new GraphQLError(error.message, {
    originalError: error,
    extensions: { code: error.code, http: { status: httpStatusOf(error.code), headers } },
  });
}

/**
 * 40000 for a request GraphQL cannot run as asked. `spec` (syntax, validation, variables, depth,
 * complexity): HTTP 400 under `application/graphql-response+json`, 200 under `application/json`, as
 * GraphQL over HTTP wants; otherwise `httpStatus` always (405 for a charged field over GET).
 */
export function badRequest(message: string, httpStatus = 400, spec = httpStatus === 400): GraphQLError {
  return new GraphQLError(message, { extensions: { code: STATUS.BAD_REQUEST, http: { status: httpStatus, spec } } });
}

/** Adds code 40000 to a GraphQL error of the request itself, in place (as yoga marks validation errors). */
export function markRequestError(error: GraphQLError): GraphQLError {
  const extensions = error.extensions as Record<string, unknown>;
  if (typeof extensions.code !== 'number') extensions.code = STATUS.BAD_REQUEST;
  extensions.http ??= { spec: true, status: 400 };
  return error;
}

/** True when `error` and every error it wraps are GraphQL errors (GraphQL's own, not a fault). */
function isGraphQLChain(error: GraphQLError): boolean {
  for (let e: unknown = error; e; e = (e as GraphQLError).originalError) {
    if (!(e instanceof GraphQLError)) return false;
  }
  return true;
}

function located(error: unknown, message: string, extensions: Record<string, unknown>): GraphQLError {
  const g = error instanceof GraphQLError ? error : undefined;
  return new GraphQLError(message, { nodes: g?.nodes, source: g?.source, positions: g?.positions, path: g?.path, extensions });
}

/**
 * yoga's `maskedErrors.maskError`: maps every error of a response to one carrying a REST code.
 * A raw AppError (thrown outside execution, e.g. by the context factory) is request-level.
 */
export function maskError(error: unknown): Error {
  const domain = domainErrorOf(error);
  if (!(error instanceof GraphQLError) && domain) return requestError(domain);
  if (domain) return located(error, domain.message, { code: domain.code });
  const fault = databaseFaultError(error);
  if (fault) return error instanceof GraphQLError ? located(error, fault.message, { code: fault.code }) : requestError(fault);
  if (error instanceof GraphQLError && isGraphQLChain(error)) {
    if (typeof error.extensions.code === 'number') return error;
    // No path: the request itself (syntax, validation, variable values) → 40000.
    if (!error.path) return markRequestError(error);
  }
  return located(error, statusMessage(STATUS.INTERNAL_ERROR), { code: STATUS.INTERNAL_ERROR, unexpected: true });
}

/** True for errors that are answers, not faults (not logged as errors). */
export function isExpectedError(error: unknown): boolean {
  if (domainErrorOf(error)) return true;
  return error instanceof GraphQLError && typeof error.extensions.code === 'number' && error.extensions.code < STATUS.INTERNAL_ERROR;
}
