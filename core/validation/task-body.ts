/**
 * Validation of task-style POST bodies (api-spec.md "Endpoints", "Limits", "Errors"):
 * the body must be a JSON array of 1..100 task objects (else 40000 / 40001 at request level);
 * each element is then read with its endpoint's schema (core/validation/requests.ts,
 * read-fields.ts), and a bad field fails only its task (40501 naming the field, 40502 unknown
 * marketplace, 40503 invalid ASIN) — unless no element is valid (`failRequestIfNoneValid`).
 */
import { DomainError } from '../errors.js';
import { FIELD_CODES } from '../domain/status-codes.js';

export { fields } from './fields.js';

/** Largest request body, in bytes (1 MiB; api-spec.md "Limits"): REST answers HTTP 413 beyond it, GraphQL refuses it too. */
export const MAX_BODY_BYTES = 1_048_576;

/** Maximum task objects in one POST body. */
export const MAX_TASKS = 100;

/**
 * Checks the body's shape.
 * @throws AppError 40000 (not an array of objects / empty / more than `max` for live), 40001 (> 100).
 */
export function taskArray(body: unknown, options: { exactlyOne?: boolean } = {}): Record<string, unknown>[] {
  if (!Array.isArray(body) || body.length === 0) throw new DomainError('BAD_REQUEST', { message: 'Bad Request. The body must be a JSON array of task objects.' });
  if (body.length > MAX_TASKS) throw new DomainError('TOO_MANY_TASKS');
  if (options.exactlyOne && body.length !== 1) throw new DomainError('BAD_REQUEST', { message: 'Bad Request. live takes exactly one task.' });
  for (const element of body) {
    if (element === null || typeof element !== 'object' || Array.isArray(element)) {
      throw new DomainError('BAD_REQUEST', { message: 'Bad Request. Every element must be a task object.' });
    }
  }
  return body as Record<string, unknown>[];
}

/**
 * Mirrors the spec's 402 rule for field errors: when no task of the request is valid, the request
 * fails as a whole (HTTP 400 with the first task's 40501/40502/40503); otherwise only the invalid
 * tasks fail, at task level.
 * @throws AppError when every element failed validation.
 */
export function failRequestIfNoneValid(errors: (DomainError | undefined)[]): void {
  const first = errors[0];
  if (first && errors.every((e) => e && FIELD_CODES.has(e.code))) throw first;
}
