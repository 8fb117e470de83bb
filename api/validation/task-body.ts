/**
 * Validation of task-style POST bodies (api-spec.md "Endpoints", "Limits", "Errors"):
 * the body must be a JSON array of 1..100 task objects (else 40000 / 40001 at request level);
 * each element is then checked field by field, and a bad field fails only its task
 * (40501 naming the field, 40502 unknown marketplace, 40503 invalid ASIN).
 */
import { z } from 'zod';
import { AppError, TaskError } from '../../core/errors.js';
import { resolveMarketplace, type Marketplace } from '../../core/marketplaces.js';
import { checkWebhookUrl } from '../../core/webhooks/url-policy.js';

/** Maximum task objects in one POST body. */
export const MAX_TASKS = 100;

/**
 * Checks the body's shape.
 * @throws AppError 40000 (not an array of objects / empty / more than `max` for live), 40001 (> 100).
 */
export function taskArray(body: unknown, options: { exactlyOne?: boolean } = {}): Record<string, unknown>[] {
  if (!Array.isArray(body) || body.length === 0) throw new AppError('BAD_REQUEST', { message: 'Bad Request. The body must be a JSON array of task objects.' });
  if (body.length > MAX_TASKS) throw new AppError('TOO_MANY_TASKS');
  if (options.exactlyOne && body.length !== 1) throw new AppError('BAD_REQUEST', { message: 'Bad Request. live takes exactly one task.' });
  for (const element of body) {
    if (element === null || typeof element !== 'object' || Array.isArray(element)) {
      throw new AppError('BAD_REQUEST', { message: 'Bad Request. Every element must be a task object.' });
    }
  }
  return body as Record<string, unknown>[];
}

/** ASIN rule: 10 letters or digits after uppercasing (40503); not a string → 40501. */
export function readAsin(task: Record<string, unknown>, field = 'asin'): string {
  const value = task[field];
  if (typeof value !== 'string') throw TaskError.invalidField(field);
  const asin = value.trim().toUpperCase();
  if (!/^[A-Z0-9]{10}$/.test(asin)) throw new TaskError(40503);
  return asin;
}

/** Marketplace code or alias (40502); not a string → 40501. */
export function readMarketplace(task: Record<string, unknown>, field = 'marketplace'): Marketplace {
  const value = task[field];
  if (typeof value !== 'string') throw TaskError.invalidField(field);
  const marketplace = resolveMarketplace(value);
  if (!marketplace) throw new TaskError(40502);
  return marketplace;
}

/**
 * Reads an optional field with a zod schema; absent → `fallback`; invalid → 40501 naming it.
 */
export function readOptional<T>(task: Record<string, unknown>, field: string, schema: z.ZodType<T>, fallback: T): T {
  if (!(field in task) || task[field] === undefined) return fallback;
  const parsed = schema.safeParse(task[field]);
  if (!parsed.success) throw TaskError.invalidField(field);
  return parsed.data;
}

/**
 * Reads `postback_url` / `pingback_url`: null when absent; 40501 naming the field when it is not a
 * string of at most 2048 characters or breaks the URL rules of api-spec.md "Events" (scheme,
 * credentials, local or non-public host, control characters, bad labels); `allowlist` is
 * WEBHOOK_ALLOWLIST.
 */
export function readWebhookUrl(task: Record<string, unknown>, field: 'postback_url' | 'pingback_url', allowlist: readonly string[]): string | null {
  const value = readOptional(task, field, fields.webhookUrl, null);
  if (value !== null && !checkWebhookUrl(value, allowlist).ok) throw TaskError.invalidField(field);
  return value;
}

/** Shared field schemas (api-spec.md "Limits"). */
export const fields = {
  tag: z.string().max(255).nullable(),
  priority: z.union([z.literal(1), z.literal(2)]),
  webhookUrl: z.string().max(2048).nullable(),
  maxAgeMinutes: z.number().int().min(0).max(43200),
  historyLimit: z.number().int().min(1).max(1000),
  historyOffset: z.number().int().min(0).max(1_000_000),
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s)).nullable(),
};

/** Codes of a task whose fields are wrong (fixed by correcting the request). */
const FIELD_CODES = new Set([40501, 40502, 40503]);

/**
 * Mirrors the spec's 402 rule for field errors: when no task of the request is valid, the request
 * fails as a whole (HTTP 400 with the first task's 40501/40502/40503); otherwise only the invalid
 * tasks fail, at task level.
 * @throws AppError when every element failed validation.
 */
export function failRequestIfNoneValid(errors: (TaskError | undefined)[]): void {
  const first = errors[0];
  if (first && errors.every((e) => e && FIELD_CODES.has(e.code))) throw AppError.fromTaskError(first);
}
