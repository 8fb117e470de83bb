/**
 * Request schemas per endpoint (api-spec.md "Endpoints", "Limits"): the object of one body element,
 * the query strings and the path parameters. The services read requests with these very objects
 * (core/validation/read-fields.ts walks their shape, field by field in the order written here, which
 * is the order errors are reported in), and /openapi.json is generated from them (api/rest/openapi).
 * The bodies are arrays of 1..100 elements (`taskArrayBody`), checked first by `taskArray`.
 */
import { z } from 'zod';
import { checkWebhookUrl } from '../webhooks/url-policy.js';
import { alertRules } from './alerts.js';
import * as f from './fields.js';
import { keyword } from './search-fields.js';
import type { FieldChecks } from './read-fields.js';
import { MAX_TASKS } from './task-body.js';

/** One task_post element (api-spec.md "Product endpoints"). */
export const taskPostTask = z.object({
  asin: f.asin,
  marketplace: f.marketplace,
  priority: f.priority,
  tag: f.tag.default(null),
  postback_url: f.postbackUrl,
  pingback_url: f.pingbackUrl,
}).meta({ id: 'TaskPostTask', description: 'One task of a task_post body.' });

/** One live element. */
export const liveTask = z.object({
  asin: f.asin,
  marketplace: f.marketplace,
  max_age_minutes: f.maxAgeMinutes,
}).meta({ id: 'LiveTask', description: 'The one task of a live body.' });

/** One history element; `date_from` after `date_to` fails with 40501 `date_from`. */
export const historyTask = z.object({
  asin: f.asin,
  marketplace: f.marketplace,
  date_from: f.day.nullable().default(null).meta({ description: 'First UTC day (YYYY-MM-DD) of the observations returned; not after date_to.' }),
  date_to: f.day.nullable().default(null).meta({ description: 'Last UTC day (YYYY-MM-DD) of the observations returned.' }),
  limit: f.historyLimit,
  offset: f.historyOffset,
}).meta({ id: 'HistoryTask', description: 'One task of a history body: stored observations of one product, newest first.' });

/**
 * One monitoring/add element; an absent `tag` / `external_user_id` / `alerts` / `alert_url` leaves
 * an existing subscription's value. `alert_url` follows the URL rules of postback_url
 * (`alertUrlChecks`).
 */
export const monitoringAddTask = z.object({
  asin: f.asin,
  marketplace: f.marketplace,
  frequency: f.frequency,
  tag: f.tag.optional(),
  external_user_id: f.externalUserId.optional(),
  alerts: alertRules.optional(),
  alert_url: f.alertUrl.optional(),
}).meta({ id: 'MonitoringAddTask', description: 'One subscription to create, or to update (same asin and marketplace: frequency and tag change, and alerts and alert_url when given).' });

/** Tracked ASINs of a keyword subscription. */
export const MAX_TRACK_ASINS = 50;

/**
 * One monitoring/add element of the keyword form (search-page-contract.md "API" Monitoring): each
 * run reads the results pages 1..`pages` of `keyword`; the rank rules of `alerts` judge the
 * `track_asins`. Absent `pages` / `track_asins`: 1 and none on creation, unchanged on update.
 */
export const monitoringAddKeywordTask = z.object({
  keyword,
  marketplace: f.marketplace,
  pages: z.number().int().min(1).max(5).optional()
    .meta({ description: 'Results pages read per run, 1 to 5; each delivered page is charged the monitoring search price. Absent: 1 on creation, unchanged on update.', examples: [2] }),
  frequency: f.frequency,
  track_asins: z.array(f.asin).max(MAX_TRACK_ASINS)
    .transform((asins) => [...new Set(asins)])
    .optional()
    .meta({ description: `ASINs whose places in the results the rank rules judge, 0 to ${MAX_TRACK_ASINS} (a repeated one counts once). Absent: none on creation, unchanged on update (the rules of an ASIN no longer tracked are removed).`, examples: [['B0CHX1W1XY']] }),
  tag: f.tag.optional(),
  external_user_id: f.externalUserId.optional(),
  alerts: alertRules.optional(),
  alert_url: f.alertUrl.optional(),
}).meta({ id: 'MonitoringAddKeywordTask', description: 'One keyword subscription to create, or to update (same keyword, case-insensitive, and marketplace: frequency, tag, pages, track_asins, alerts and alert_url change when given). Rank rules in `alerts` name one of the element\'s `track_asins` in `asin`.' });

/**
 * One monitoring/delete element: `id`, else `asin` plus `marketplace` (each optional on its own;
 * with `id`, a given asin / marketplace must match the subscription). Rules in services/monitoring.ts.
 */
export const monitoringDeleteTask = z.object({
  id: f.subscriptionId.nullish(),
  asin: f.asin.nullish(),
  keyword: keyword.nullish(),
  marketplace: f.marketplace.nullish(),
}).meta({ id: 'MonitoringDeleteTask', description: 'Names one subscription: by `id`, by `asin` plus `marketplace`, or by `keyword` (case-insensitive) plus `marketplace`. Naming none fails with 40501 `id`; `asin` or `keyword` without `marketplace` (or the reverse) fails with 40501 naming the missing one; `asin` with `keyword` fails with 40501 `keyword`.' });

/** One POST /v1/appendix/keys element. */
export const keyCreateTask = z.object({ label: f.keyLabel }).meta({ id: 'KeyCreateTask', description: 'One API key to create.' });

/** True when `s` has at most `max` code points (counted only when its UTF-16 length leaves a doubt). */
function codePointsAtMost(s: string, max: number): boolean {
  return s.length <= max || (s.length <= 2 * max && [...s].length <= max);
}

/** A string of at most `max` characters (code points, as PostgreSQL and JSON Schema count them). */
const text = (max: number) => z.string()
  .refine((s) => codePointsAtMost(s, max))
  .meta({ override: { maxLength: max } });
const optionalText = (max: number, description: string) => text(max).nullable().optional().meta({ description });

/** The access request (api-spec.md "Access request body"); keys in the order errors are reported. */
export const accessRequest = z.object({
  email: z.email().refine((s) => codePointsAtMost(s, 254))
    .meta({ override: { maxLength: 254 }, description: 'Where the secure link to the credentials is sent; at most 254 characters.', examples: ['buyer@example.com'] }),
  name: optionalText(200, 'Your name, at most 200 characters.'),
  company: optionalText(200, 'Company, at most 200 characters.'),
  use_case: optionalText(2000, 'What you want to do with the data, at most 2000 characters.'),
  website: optionalText(500, 'Spam trap: forms render it hidden and leave it empty. A filled-in value is answered like a success and never reviewed.'),
}).meta({ id: 'AccessRequest', description: 'A request for an account; an administrator creates the account and e-mails a one-time link.' });

/** GET /v1/retail/monitoring/list query. */
export const monitoringListQuery = z.object({
  limit: f.optionalTextInteger(1, 1000, 100, 'Subscriptions per page.'),
  offset: f.optionalTextInteger(0, 2_147_483_647, 0, 'Subscriptions skipped (oldest first).'),
  tag: z.string().max(255).optional().meta({ description: 'Only subscriptions with exactly this tag (at most 255 characters).' }),
});

/** GraphQL `tasks` filters: `tag` as task_post's, `from` / `to` UTC days of creation (from first). */
export const taskListFilter = z.object({
  tag: f.tag.optional(),
  from: f.day.optional(),
  to: f.day.optional(),
});

/** GraphQL `subscriptions` filter: the `tag` of GET /v1/retail/monitoring/list. */
export const subscriptionListFilter = monitoringListQuery.pick({ tag: true });

/** GET /v1/appendix/usage query; date_to is read (and reported) first. The range rule is in services/usage.ts. */
export const usageQuery = z.object({
  date_to: f.day.optional().meta({ description: 'Last UTC day of the range (YYYY-MM-DD); default today.' }),
  date_from: f.day.optional().meta({ description: 'First UTC day (YYYY-MM-DD); default 29 days before date_to. At most 366 days in all, not after date_to (else 40501 `date_from`).' }),
});

/** GET /v1/appendix/ledger query: the usage range and a page of entries, newest first. */
export const ledgerQuery = usageQuery.extend({
  limit: f.optionalTextInteger(1, 1000, 100, 'Entries per page.'),
  offset: f.optionalTextInteger(0, 2_147_483_647, 0, 'Entries skipped (newest first).'),
});

/** GET /v1/retail/product/task_get/{id} path. */
export const taskGetParams = z.object({ id: f.taskId });

/** DELETE /v1/appendix/keys/{key_id} path: integer 1..2^31-1, else HTTP 400 / 40501 `key_id`. */
export const keyIdParams = z.object({
  key_id: f.textInteger(1, 2_147_483_647, 'The `id` of the key as listed in user_data (`api_keys[].id`).', /^[1-9]\d{0,9}$/),
});

/** GET /v1/public/credentials/{token} path. */
export const credentialsParams = z.object({
  token: z.string().meta({ description: 'The one-time token of the link e-mailed after approval. Unknown, already read or expired (7 days) tokens answer HTTP 404 / 40400.' }),
});

/**
 * A task-style body: a JSON array of `min`..`max` elements (api-spec.md "Limits"); for the document.
 * The shape rules are applied by `taskArray` (40000 / 40001) before any element is read.
 */
export function taskArrayBody<T extends z.ZodType>(element: T, max: number = MAX_TASKS) {
  return z.array(element).min(1).max(max);
}

/** POST /v1/public/access_request body: the object, or an array holding exactly one. */
export const accessRequestBody = z.union([accessRequest, z.array(accessRequest).length(1)]);

/** The URL rules of api-spec.md "Events" for monitoring/add's `alert_url` (as `webhookUrlChecks`). */
export function alertUrlChecks({ allowlist, ports }: { allowlist: readonly string[]; ports: readonly number[] }): FieldChecks<typeof monitoringAddTask> & FieldChecks<typeof monitoringAddKeywordTask> {
  return { alert_url: (url) => url === undefined || url === null || checkWebhookUrl(url, allowlist, { ports }).ok };
}

/**
 * The URL rules of api-spec.md "Events" for task_post's `postback_url` and `pingback_url`, checked
 * right after each field's type and length; `allowlist` is WEBHOOK_ALLOWLIST, `ports` WEBHOOK_PORTS.
 */
export function webhookUrlChecks({ allowlist, ports }: { allowlist: readonly string[]; ports: readonly number[] }): FieldChecks<typeof taskPostTask> {
  const allowed = (url: string | null) => url === null || checkWebhookUrl(url, allowlist, { ports }).ok;
  return { postback_url: allowed, pingback_url: allowed };
}
