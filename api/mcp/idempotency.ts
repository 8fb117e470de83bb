/**
 * `idempotency_key` of an MCP tool call: the REST `Idempotency-Key` rules
 * (api/rest/middleware/idempotency.ts, operations-contract.md) over the same storage
 * (core/idempotency.ts), keyed by account and key and identified by the REST endpoint and body
 * the call stands for. So a key first used by get_product and sent again to POST live with the
 * same element replays the same task, and the reverse; the stored answer is the REST envelope.
 */
import type { AuthAccount } from '../../core/authentication.js';
import type { Db } from '../../core/db/db.js';
import { asStatusCode } from '../../core/domain/status-codes.js';
import { batchOutcome, taskOutcome, type BatchOutcome } from '../../core/domain/outcomes.js';
import { ChargedFailure, DomainError } from '../../core/errors.js';
import {
  IDEMPOTENCY_KEY_PATTERN, completeIdempotentRequest, idempotencyRequestHash, releaseIdempotencyKey, reserveIdempotencyKey,
} from '../../core/idempotency.js';
import type { Logger } from '../../core/logger.js';
import type { AccountRateLimits } from '../../core/rate-limits.js';
import { renderEnvelope, type Envelope } from '../rest/envelope/envelope.js';

/** The outcome of a call and whether it is the replay of an earlier one (charged nothing, metered without tasks). */
export interface IdempotentOutcome {
  outcome: BatchOutcome;
  replayed: boolean;
}

/** The outcome a stored REST envelope stands for (its tasks' codes, messages, costs and results). */
function outcomeOf(text: string): BatchOutcome {
  const envelope = JSON.parse(text) as Envelope;
  const tasks = envelope.tasks.map((t) => taskOutcome({ id: t.id, code: asStatusCode(t.status_code), message: t.status_message, cost: t.cost, path: t.path, data: t.data, result: t.result }));
  return batchOutcome(tasks, asStatusCode(envelope.status_code), envelope.status_message);
}

/**
 * Runs `answer()` at most once per account and key (see the module comment).
 * @throws DomainError 40501 `idempotency_key` for a key that is not 1–255 visible ASCII characters;
 *   40000 when the key was used with another call, or while its first call is still running;
 *   whatever `answer()` throws (the key is then freed, as REST frees it, unless it is a
 *   ChargedFailure)
 */
export async function runIdempotently(
  deps: { db: Db; logger: Logger; rateLimits: AccountRateLimits },
  account: AuthAccount,
  call: { endpoint: string; key: unknown; tasks: number; body: unknown },
  answer: () => Promise<BatchOutcome>,
): Promise<IdempotentOutcome> {
  if (typeof call.key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(call.key)) throw DomainError.invalidField('idempotency_key');
  const ids = { accountId: account.id, key: call.key };
  const requestHash = idempotencyRequestHash(call.endpoint, call.body);
  const found = await reserveIdempotencyKey(deps.db, { ...ids, requestHash });
  if (found.kind === 'mismatch') throw new DomainError('BAD_REQUEST', { message: 'Bad Request. This idempotency_key was already used with another request (endpoint or body) in the last 24 hours.' });
  if (found.kind === 'in_progress') throw new DomainError('BAD_REQUEST', { message: 'Bad Request. A request with this idempotency_key is still being answered; retry shortly.', retryAfterSeconds: 1 });
  if (found.kind === 'replay') {
    await deps.rateLimits.giveBackTasks(account.id, account.limits, call.tasks);
    return { outcome: outcomeOf(found.response), replayed: true };
  }
  let outcome: BatchOutcome;
  try {
    outcome = await answer();
  } catch (error) {
    // A call that failed after something was charged keeps its key (a retry must not pay again).
    if (!(error instanceof ChargedFailure)) {
      await releaseIdempotencyKey(deps.db, ids).catch((err: unknown) => deps.logger.error({ err, key: call.key }, 'could not free an idempotency_key'));
    }
    throw error;
  }
  try {
    await completeIdempotentRequest(deps.db, { ...ids, httpStatus: 200, response: JSON.stringify(renderEnvelope(outcome, performance.now())) });
  } catch (error) {
    deps.logger.error({ err: error, key: call.key }, 'could not store the answer of an idempotency_key');
  }
  return { outcome, replayed: false };
}
