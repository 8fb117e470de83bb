/**
 * The `Idempotency-Key` request header of task_post and live (operations-contract.md): a request
 * sent again with the same key and the same body within 24 hours gets the first response again,
 * byte for byte (same task ids), and is charged nothing and metered as a request without tasks;
 * the same key with another body (or on the other endpoint) is refused with HTTP 409 / 40000.
 * Of concurrent duplicates one runs; the others are refused with HTTP 409 / 40000 and Retry-After
 * until it has answered. A request refused as a whole (4xx / 5xx envelope) frees its key: it
 * changed nothing, so the client may fix it (or top up) and send it again with the same key. A
 * request that failed after something was charged under it (`ChargedFailure`) keeps its key taken:
 * a retry is refused (409 in progress) rather than charged again.
 * Storage: core/idempotency.ts.
 */
import type { Db } from '../../../core/db/db.js';
import { ChargedFailure, DomainError } from '../../../core/errors.js';
import { HttpError } from '../http-error.js';
import {
  IDEMPOTENCY_KEY_PATTERN, completeIdempotentRequest, idempotencyRequestHash, releaseIdempotencyKey, reserveIdempotencyKey,
} from '../../../core/idempotency.js';
import type { Logger } from '../../../core/logger.js';
import type { AccountRateLimits } from '../../../core/rate-limits.js';
import type { AppContext } from '../context.js';

/** The request header (operations-contract.md). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

export { IDEMPOTENCY_KEY_PATTERN };

/** The response header set on a replayed response. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** The answer of an endpoint: HTTP status and the JSON body to send. */
export interface JsonAnswer {
  status: number;
  body: unknown;
}


/**
 * Answers `ctx` with `answer()`, at most once per account and Idempotency-Key when the header is
 * sent (see the module comment); without the header, simply with `answer()`. `request` is what
 * identifies the request with the endpoint: the JSON body, or for a streamed body its digest.
 * @throws AppError 40501 (HTTP 400) naming `Idempotency-Key` when the key is empty, longer than
 *   255 characters or not visible ASCII; 40000 (HTTP 409) when the key was used with another
 *   request, or (with Retry-After) while its first request is still being answered; whatever
 *   `answer()` throws.
 */
export async function answerIdempotently(
  ctx: AppContext,
  deps: { db: Db; logger: Logger; rateLimits?: AccountRateLimits },
  endpoint: string,
  answer: () => Promise<JsonAnswer>,
  request: unknown = ctx.request.json,
): Promise<void> {
  const header = ctx.headers[IDEMPOTENCY_HEADER.toLowerCase()];
  const account = ctx.state.account!;
  if (header === undefined) return send(ctx, await answer());
  const key = Array.isArray(header) ? '' : header;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) throw DomainError.invalidField(IDEMPOTENCY_HEADER);
  const ids = { accountId: account.id, key };
  const found = await reserveIdempotencyKey(deps.db, { ...ids, requestHash: idempotencyRequestHash(endpoint, request) });
  if (found.kind === 'mismatch') {
    throw new HttpError('BAD_REQUEST', { httpStatus: 409, message: `Bad Request. This ${IDEMPOTENCY_HEADER} was already used with another request (endpoint or body) in the last 24 hours.` });
  }
  if (found.kind === 'in_progress') {
    throw new HttpError('BAD_REQUEST', { httpStatus: 409, message: `Bad Request. A request with this ${IDEMPOTENCY_HEADER} is still being answered; retry shortly.`, retryAfterSeconds: 1 });
  }
  if (found.kind === 'replay') {
    ctx.state.idempotentReplay = true;
    // The replay creates no task: the task points its body was counted for are given back.
    await deps.rateLimits?.giveBackTasks(account.id, account.limits, Array.isArray(ctx.request.json) ? ctx.request.json.length : 0);
    ctx.status = found.httpStatus;
    ctx.type = 'application/json';
    ctx.set(REPLAYED_HEADER, 'true');
    ctx.body = found.response;
    return;
  }
  let result: JsonAnswer;
  try {
    result = await answer();
  } catch (error) {
    if (!(error instanceof ChargedFailure)) {
      await releaseIdempotencyKey(deps.db, ids).catch((err: unknown) => deps.logger.error({ err, key }, 'could not free an Idempotency-Key'));
    }
    throw error;
  }
  // Koa sends an object body as JSON.stringify(body): the stored text is those very bytes.
  const response = JSON.stringify(result.body);
  try {
    await completeIdempotentRequest(deps.db, { ...ids, httpStatus: result.status, response });
  } catch (error) {
    // The key stays reserved (409 in progress for 24 hours) rather than let a retry pay again.
    deps.logger.error({ err: error, key }, 'could not store the response of an Idempotency-Key');
  }
  send(ctx, result);
}

function send(ctx: AppContext, result: JsonAnswer): void {
  ctx.status = result.status;
  ctx.body = result.body;
}
