/**
 * Reads a POST body as JSON (raw-body, 1 MiB limit → HTTP 413 / 40000; malformed JSON → 40000;
 * nested deeper than `MAX_JSON_DEPTH` → 40000). An empty body is no body (`undefined`): endpoints
 * that need one refuse it with their own 40000; a POST without one (redeliver) takes it. A bulk
 * task_post body (`isBulkUpload`) is left unread: its route streams it.
 */
import getRawBody from 'raw-body';
import type { Middleware } from 'koa';
import { HttpError } from '../http-error.js';
import { MAX_BODY_BYTES } from '../../../core/validation/task-body.js';
import { bulkFormatOf } from '../../../core/validation/analytics.js';


/**
 * Deepest nesting of arrays and objects accepted in a body. Every body the API defines is at most 5
 * levels deep (a GraphQL request's variables included); a body of a million `[` would otherwise
 * exhaust the stack wherever it is walked or serialised again (validation, the stored `data`).
 */
export const MAX_JSON_DEPTH = 32;

/** True when `value` nests arrays / objects more than `max` levels deep (iterative: no recursion). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const inner of Object.values(current)) stack.push([inner, depth + 1]);
  }
  return false;
}

declare module 'koa' {
  interface Request {
    /** The parsed JSON body of a POST. */
    json?: unknown;
  }
}

/** The path whose POST also takes a streamed bulk body (api/rest/bulk-upload.ts). */
export const BULK_UPLOAD_PATH = '/v1/retail/product/task_post';

/**
 * True for a bulk task_post (`text/csv`, `application/x-ndjson`): its body is streamed by the route,
 * never read here.
 */
export function isBulkUpload(ctx: { method: string; path: string; get(field: string): string }): boolean {
  return ctx.method === 'POST' && ctx.path === BULK_UPLOAD_PATH && bulkFormatOf(ctx.get('content-type')) !== undefined;
}

export function jsonBody(): Middleware {
  return async (ctx, next) => {
    if (ctx.method === 'POST' && !isBulkUpload(ctx)) {
      let text: string;
      try {
        text = await getRawBody(ctx.req, { limit: MAX_BODY_BYTES, encoding: 'utf8', length: ctx.get('content-length') || undefined });
      } catch (error) {
        const status = (error as { status?: number }).status;
        if (status === 413) throw new HttpError('BAD_REQUEST', { httpStatus: 413, message: 'Bad Request. Body larger than 1048576 bytes.' });
        throw new HttpError('BAD_REQUEST', { cause: error });
      }
      let json: unknown;
      try {
        json = text.trim() === '' ? undefined : JSON.parse(text);
      } catch {
        throw new HttpError('BAD_REQUEST', { message: 'Bad Request. Body is not valid JSON.' });
      }
      if (nestedDeeperThan(json, MAX_JSON_DEPTH)) throw new HttpError('BAD_REQUEST', { message: `Bad Request. Body nested deeper than ${MAX_JSON_DEPTH} levels.` });
      ctx.request.json = json;
    }
    await next();
  };
}
