/**
 * Field schemas of request bodies, query strings and path parameters (api-spec.md "Endpoints",
 * "Limits"). Each schema is at once the validator of its field and the source of that field in
 * /openapi.json: type, bounds, defaults, description and examples are declared here, once.
 *
 * What JSON Schema cannot say exactly is added with zod-openapi's `override` (rendering only): the
 * case-insensitive ASIN and marketplace patterns, query integers that travel as strings.
 * `valueCodes` holds the code of a field whose value has the right JSON type but is refused
 * (40502 marketplace, 40503 ASIN); every other refusal is 40501 naming the field
 * (core/validation/read-fields.ts).
 */
import { z } from 'zod';
import type {} from 'zod-openapi';
import { isUuid } from '../ids.js';
import { MARKETPLACE_ALIASES, MARKETPLACE_CODES, resolveMarketplace } from '../marketplaces.js';
import { FREQUENCIES } from '../subscriptions.js';

/** Status code of a field whose value is of the right type but refused (api-spec.md "Errors"). */
/** The codes a field's refused value may answer instead of INVALID_FIELD. */
export type ValueCodeKey = 'UNKNOWN_MARKETPLACE' | 'INVALID_ASIN';

export const valueCodes = z.registry<{ code: ValueCodeKey }>();

/**
 * Fields whose refusals name the failing element and key and say why (`Invalid field:
 * \`alerts[1].value\`. price_below needs a value …`): lists of objects, where the field's name
 * alone would not tell which rule is wrong (core/validation/read-fields.ts).
 */
export const detailedFields = z.registry<{ detailed: true }>();

/** The ASIN rule after trimming and uppercasing (api-spec.md "Limits"). */
const ASIN = /^[A-Z0-9]{10}$/;

/** ASIN of a request: trimmed and uppercased, then 10 letters or digits (else 40503; not a string → 40501). */
export const asin = z.string().trim().toUpperCase().regex(ASIN)
  .meta({
    description: 'Product ASIN, case-insensitive: 10 letters or digits (surrounding spaces ignored). A string that is not an ASIN fails with 40503.',
    examples: ['B0CHX1W1XY'],
    override: { pattern: '^\\s*[A-Za-z0-9]{10}\\s*$' },
  })
  .register(valueCodes, { code: 'INVALID_ASIN' });

/** `com` → `[cC][oO][mM]`: JSON Schema patterns have no case-insensitive flag. */
const anyCase = (word: string) => [...word].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join('');

/** Marketplace code or alias, case-insensitive → the Marketplace (else 40502; not a string → 40501). */
export const marketplace = z.string()
  .transform((value, ctx) => {
    const found = resolveMarketplace(value);
    if (found) return found;
    ctx.addIssue({ code: 'custom', message: 'Unknown marketplace.' });
    return z.NEVER;
  })
  .meta({
    description: `Marketplace code, case-insensitive: ${MARKETPLACE_CODES.join(', ')}; aliases ${MARKETPLACE_ALIASES.join(', ')} (us and usa mean com, gb means uk). Any other string fails with 40502.`,
    examples: ['com'],
    override: { pattern: `^\\s*(?:${[...MARKETPLACE_CODES, ...MARKETPLACE_ALIASES].map(anyCase).join('|')})\\s*$` },
  })
  .register(valueCodes, { code: 'UNKNOWN_MARKETPLACE' });

/** task_post priority: 1 normal, 2 high (default 1). */
export const priority = z.union([z.literal(1), z.literal(2)]).default(1)
  .meta({ description: '`1` normal, `2` high (processed first, costs more; plans without high priority answer HTTP 403 / 40600).', examples: [1] });

/** A tag: string or null, at most 255 characters. */
export const tag = z.string().max(255).nullable()
  .meta({ description: 'Free text of at most 255 characters, echoed in `data`, tasks_ready and pingbacks ($tag).', examples: ['campaign-7'] });

/**
 * A webhook URL's type and length; the URL rules of api-spec.md "Events" (scheme, credentials,
 * public host, requestable) are checked after it (they depend on WEBHOOK_ALLOWLIST).
 */
const webhookUrl = (description: string, example: string) => z.string().max(2048).nullable().default(null)
  .meta({ description: `${description} At most 2048 characters; http or https without credentials, host not private, loopback, link-local or local (api-spec.md "Events"), else the task fails with 40501.`, examples: [example] });

/** monitoring/add `alert_url`: receives the subscription's change events by signed POST. */
export const alertUrl = z.string().max(2048).nullable()
  .meta({ description: 'Receives the subscription\'s `change` events (its `alerts` firing) by signed POST, like a postback. At most 2048 characters; http or https without credentials, host not private, loopback, link-local or local (api-spec.md "Events"), else the task fails with 40501. Absent: unchanged; null: events are recorded and listed only.', examples: ['https://example.com/hooks/alerts'] });

/** task_post `postback_url`: receives the task_get envelope by signed POST on completion. */
export const postbackUrl = webhookUrl('Receives the task_get response for the task by signed POST on completion.', 'https://example.com/hooks/postback');
/** task_post `pingback_url`: called with GET on completion, `$id` and `$tag` replaced. */
export const pingbackUrl = webhookUrl('Called with GET on completion; `$id` and `$tag` are replaced anywhere in it.', 'https://example.com/hooks/ping?id=$id&tag=$tag');

/** live `max_age_minutes`: 0..43200, default 60. */
export const maxAgeMinutes = z.number().int().min(0).max(43200).default(60)
  .meta({ description: 'A stored observation at most this many minutes old is returned at once; `0` always reads the page.', examples: [60] });

/** A UTC day `YYYY-MM-DD` that exists on the calendar. */
export const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s))
  .meta({ format: 'date', description: 'UTC day, YYYY-MM-DD.', examples: ['2026-01-31'] });

/** history `limit`: 1..1000 rows, default 100. */
export const historyLimit = z.number().int().min(1).max(1000).default(100).meta({ description: 'Rows returned, newest first.' });
/** history `offset`: 0..1,000,000 rows skipped, default 0. */
export const historyOffset = z.number().int().min(0).max(1_000_000).default(0).meta({ description: 'Rows skipped.' });

/** Monitoring frequency. */
export const frequency = z.enum(FREQUENCIES).meta({ description: 'How often the product is observed.', examples: ['daily'] });

/**
 * Something shaped like an e-mail address anywhere in the text (`name@domain.tld`): a character
 * before `@`, then a domain with a dot. Written so a match is tried in linear time (no
 * `[^@]+@` run that each start position would scan again).
 */
const EMAIL_LIKE = /[^\s@]@[^\s@]+\.[^\s@]/;

/**
 * Opaque id of the caller's end user: at most 255 characters, e-mail addresses refused (no personal
 * data). Over the length nothing else is looked at (`abort`): a 1 MB value costs one comparison.
 */
export const externalUserId = z.string().max(255, { abort: true }).refine((s) => !EMAIL_LIKE.test(s))
  .meta({ override: { not: { pattern: EMAIL_LIKE.source } } })
  .nullable()
  .meta({ description: 'Opaque id of your own end user, at most 255 characters; no personal data, so anything containing an e-mail address is refused (40501).', examples: ['user-1842'] });

/** A subscription id: integer 1..2^31-1. */
export const subscriptionId = z.number().int().min(1).max(2_147_483_647).meta({ description: 'Subscription id (monitoring/add result `id`).', examples: [17] });

/** An API key label: string or null, at most 100 characters. */
export const keyLabel = z.string().max(100).nullable().default(null).meta({ description: 'Your name for the key, at most 100 characters.', examples: ['ci'] });

/**
 * An integer that travels as a query-string or path text: `digits` (default 1 to 10 decimal
 * digits), then `min..max`. Documented as an integer parameter (its wire form is the decimal text).
 */
export function textInteger(min: number, max: number, description: string, digits = /^\d{1,10}$/) {
  return z.string().regex(digits).transform(Number).pipe(z.number().min(min).max(max))
    .meta({ description, override: ({ jsonSchema }) => replaceSchema(jsonSchema, { type: 'integer', minimum: min, maximum: max }) });
}

/** Like `textInteger`, absent → `fallback`. */
export function optionalTextInteger(min: number, max: number, fallback: number, description: string) {
  return textInteger(min, max, description).default(fallback)
    .meta({ description, override: ({ jsonSchema }) => replaceSchema(jsonSchema, { type: 'integer', minimum: min, maximum: max, default: fallback }) });
}

/** Replaces a rendered schema's keywords, keeping its description. */
function replaceSchema(jsonSchema: Record<string, unknown>, replacement: Record<string, unknown>): void {
  for (const key of Object.keys(jsonSchema)) if (key !== 'description') delete jsonSchema[key];
  Object.assign(jsonSchema, replacement);
}

/** A task id of task_post / tasks_ready: a UUID (any version), the check task_get makes (core/ids.ts `isUuid`). */
export const taskId = z.string().refine(isUuid)
  .meta({ format: 'uuid', description: 'Task id from task_post or tasks_ready. Unknown ids (and anything that is not a UUID) answer HTTP 404 / 40400.', examples: ['01311530-8b7e-4c1d-9f2a-6f0e4c7d2b11'] });

/** Shared field schemas, by their former names (GraphQL and services import `fields.day`). */
export const fields = { tag, priority, maxAgeMinutes, historyLimit, historyOffset, day };
