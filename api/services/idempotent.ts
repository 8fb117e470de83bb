/**
 * An idempotency key for calls that are not REST requests (GraphQL mutations that charge): the
 * same rules and storage as the REST `Idempotency-Key` header (api/rest/middleware/idempotency.ts,
 * core/idempotency.ts), with the outcome stored as JSON instead of the HTTP response. Keys are the
 * account's, shared with REST: a key used on another endpoint or with another request within
 * 24 hours is refused.
 */
import type { Db } from '../../core/db/db.js';
import { ChargedFailure, DomainError } from '../../core/errors.js';
import {
  IDEMPOTENCY_KEY_PATTERN, completeIdempotentRequest, idempotencyRequestHash, releaseIdempotencyKey, reserveIdempotencyKey,
} from '../../core/idempotency.js';
import type { Logger } from '../../core/logger.js';

/** What identifies a keyed call: the caller, the key as sent, the endpoint and the request. */
export interface KeyedCall {
  accountId: number;
  key: string;
  /** The endpoint's name, e.g. `graphql:postTasks` (a key is bound to one endpoint). */
  endpoint: string;
  request: unknown;
  /** The field named in 40501 when the key is malformed (e.g. `idempotencyKey`). */
  field: string;
}

/** The call's value, and whether it is the stored value of an earlier call (charged nothing now). */
export interface KeyedAnswer<T> {
  value: T;
  replayed: boolean;
}

/**
 * Runs `answer` at most once per account and key within 24 hours: an earlier call's stored value
 * is returned instead (`replayed`); a refused call (it threw) frees the key unless it failed
 * after a charge (ChargedFailure).
 * @throws DomainError 40501 naming `call.field` for a malformed key (1 to 255 visible ASCII
 *   characters); 40000 when the key was used with another request or its first call is still
 *   running; whatever `answer` throws.
 */
export async function answerOncePerKey<T>(deps: { db: Db; logger: Logger }, call: KeyedCall, answer: () => Promise<T>): Promise<KeyedAnswer<T>> {
  if (!IDEMPOTENCY_KEY_PATTERN.test(call.key)) throw DomainError.invalidField(call.field);
  const ids = { accountId: call.accountId, key: call.key };
  const found = await reserveIdempotencyKey(deps.db, { ...ids, requestHash: idempotencyRequestHash(call.endpoint, call.request) });
  if (found.kind === 'mismatch') {
    throw new DomainError('BAD_REQUEST', { message: `Bad Request. This idempotency key was already used with another request (endpoint or arguments) in the last 24 hours.` });
  }
  if (found.kind === 'in_progress') {
    throw new DomainError('BAD_REQUEST', { message: 'Bad Request. A request with this idempotency key is still being answered; retry shortly.', retryAfterSeconds: 1 });
  }
  if (found.kind === 'replay') return { value: JSON.parse(found.response) as T, replayed: true };
  let value: T;
  try {
    value = await answer();
  } catch (error) {
    if (!(error instanceof ChargedFailure)) {
      await releaseIdempotencyKey(deps.db, ids).catch((err: unknown) => deps.logger.error({ err, key: call.key }, 'could not free an idempotency key'));
    }
    throw error;
  }
  try {
    await completeIdempotentRequest(deps.db, { ...ids, httpStatus: 200, response: JSON.stringify(value) });
  } catch (error) {
    // The key stays reserved (in progress for 24 hours) rather than let a retry pay again.
    deps.logger.error({ err: error, key: call.key }, 'could not store the answer of an idempotency key');
  }
  return { value, replayed: false };
}
