/**
 * Response objects of the REST API as zod schemas, for /openapi.json only (responses are not
 * validated at run time): the Product (api-spec.md "Product", core/product.ts), the Subscription,
 * and the `result` rows of every endpoint ("Other result objects"). Where the API has a TypeScript
 * type for the object, a compile-time check below keeps schema and type equal.
 */
import { z } from 'zod';
import { MARKETPLACE_CODES } from '../../../core/marketplaces.js';
import { AVAILABILITY_STATUSES, MISSING_REASONS, type Product } from '../../../core/product.js';
import type { StatusCodeRow } from '../../../core/domain/status-codes.js';
import { FREQUENCIES } from '../../../core/subscriptions.js';
import type { ProductSubscriptionObject } from '../../services/monitoring.js';
import type { MarketplaceStatusRow } from '../../services/status.js';
import { alertRule } from './alert-resources.js';

/** An ISO 8601 timestamp in UTC. */
const timestamp = z.string().meta({ format: 'date-time', examples: ['2026-01-31T15:30:00.000Z'] });
/** An amount in USD. */
const usd = z.number().meta({ description: 'USD.' });
/** A stored ASIN: uppercased. */
export const storedAsin = z.string().regex(/^[A-Z0-9]{10}$/).meta({ examples: ['B0CHX1W1XY'] });
/** A marketplace code (aliases are resolved before anything is stored). */
export const marketplaceCode = z.enum(MARKETPLACE_CODES).meta({ description: 'Marketplace code.' });
const count = z.number().int().min(0);

/** CategoryRank: `rank` in `category`. */
export const categoryRank = z.object({
  rank: z.number().int().min(1),
  category: z.string(),
}).meta({ id: 'CategoryRank', description: 'Rank in one category.' });

/** Bsr: the Best Sellers Rank, main category plus subcategories. */
export const bsr = z.object({
  rank: z.number().int().min(1).meta({ description: 'Rank in the main category.' }),
  category: z.string(),
  subcategories: z.array(categoryRank),
}).meta({ id: 'Bsr', description: 'Best Sellers Rank.' });

/** Price: `amount` in major units of `currency` (ISO 4217). */
export const price = z.object({
  amount: z.number().meta({ description: 'Major units of the marketplace currency.' }),
  currency: z.string().meta({ description: 'ISO 4217.', examples: ['USD'] }),
}).meta({ id: 'Price', description: 'Current price in the marketplace currency.' });

/** Variant: a sibling variant's label and ASIN. */
export const variant = z.object({
  name: z.string().meta({ description: 'Label as shown.' }),
  asin: z.string(),
}).meta({ id: 'Variant', description: 'A sibling variant on the page.' });

/** Coupon: the coupon badge of the featured offer. */
export const coupon = z.object({
  text: z.string().meta({ description: 'The badge as shown.' }),
  percent: z.number().nullable().meta({ description: 'The percentage the text states, else null.' }),
  amount: price.nullable().meta({ description: 'The amount the text states, else null.' }),
}).meta({ id: 'Coupon', description: 'Coupon badge of the featured offer.' });

/** BuyBox: the featured offer's merchant. */
export const buyBox = z.object({
  seller_name: z.string().nullable(),
  seller_id: z.string().nullable().meta({ description: 'From the `seller=` parameter of the visible seller link.' }),
  ships_from: z.string().nullable(),
  sold_by_amazon: z.boolean().nullable().meta({ description: "The seller is the marketplace's own retail." }),
  fulfilled_by_amazon: z.boolean().nullable().meta({ description: 'Ships from Amazon.' }),
}).meta({ id: 'BuyBox', description: "The featured offer's merchant." });

/** Availability: stock status, the text as shown and a quantity when one is shown. */
export const availability = z.object({
  status: z.enum(AVAILABILITY_STATUSES),
  text: z.string(),
  quantity: z.number().int().min(0).nullable().meta({ description: 'Units in "Only 3 left in stock", else null.' }),
}).meta({ id: 'Availability', description: 'Stock status of the featured offer.' });

/** Delivery: where the page delivers to and the first delivery promise. */
export const delivery = z.object({
  location: z.string().nullable(),
  promise: z.string().nullable(),
}).meta({ id: 'Delivery', description: 'Delivery location and the first delivery promise of the buy box.' });

const percentShown = z.number().int().min(0).max(100);
/** RatingHistogram: percent of ratings per star count. */
export const ratingHistogram = z.object({ '5': percentShown, '4': percentShown, '3': percentShown, '2': percentShown, '1': percentShown })
  .meta({ id: 'RatingHistogram', description: 'Percent of ratings per number of stars, as shown.' });

/** Quality: which applicable fields were read, and why each missing one is null. */
export const quality = z.object({
  version: z.number().int().min(1).meta({ description: 'Observation format: 2, or 1 for observations stored before version 2 (their version 2 fields are null or empty).' }),
  fields_read: z.number().int().min(0).nullable(),
  fields_applicable: z.number().int().min(0).nullable(),
  missing: z.array(z.object({ field: z.string(), reason: z.enum(MISSING_REASONS) })),
}).meta({ id: 'Quality', description: 'Data quality of the observation.' });

/** Product (api-spec.md "Product"; core/product.ts). */
export const product = z.object({
  asin: storedAsin,
  marketplace: marketplaceCode,
  url: z.string().meta({ description: 'Product page URL on the marketplace.' }),
  observed_at: timestamp.meta({ description: 'When the page was read, UTC.' }),
  status: z.enum(['ok', 'no_bsr', 'not_found']).meta({ description: '`no_bsr`: the page has no Best Sellers Rank; `not_found`: the product does not exist on this marketplace.' }),
  title: z.string().nullable(),
  byline: z.array(z.string()).meta({ description: 'Names under the title, usually the brand.' }),
  variant: z.string().nullable().meta({ description: 'Label of the selected variant.' }),
  variants: z.array(variant),
  price: price.nullable(),
  bsr: bsr.nullable(),
  rating: z.number().min(1).max(5).nullable().meta({ description: 'Average rating, 1.0 to 5.0.' }),
  ratings_count: z.number().int().min(0).nullable(),
  image_url: z.string().nullable().meta({ description: 'Main product image URL.' }),
  details: z.record(z.string(), z.string()).meta({ description: 'Every label/value pair of the product details except the Best Sellers Rank and the rating; keys are the labels lower-cased, runs of spaces and punctuation turned into `_`, in the marketplace language.' }),
  parser_version: z.string(),
  list_price: price.nullable().meta({ description: 'Struck-through reference price of the featured offer.' }),
  subscribe_save_price: price.nullable().meta({ description: 'Subscribe & Save price of the selected variant.' }),
  coupon: coupon.nullable(),
  prime: z.boolean().nullable().meta({ description: 'The featured offer shows a Prime signal; null without a featured offer.' }),
  buy_box: buyBox.nullable(),
  availability: availability.nullable(),
  delivery: delivery.nullable(),
  feature_bullets: z.array(z.string()).meta({ description: '"About this item" bullets in page order.' }),
  description: z.string().nullable(),
  images: z.array(z.string()).meta({ description: 'Gallery images of the selected variant, main first, largest version each.' }),
  categories: z.array(z.string()).meta({ description: 'The breadcrumb, root first.' }),
  rating_histogram: ratingHistogram.nullable(),
  quality,
}).meta({ id: 'Product', description: 'One observation of a product page. Every field is always present; a field that cannot be read reliably is null (lists and `details`: empty).' });

/** The fields of both kinds of subscription (the keyword kind's schema: keyword-subscription-resources.ts). */
export const sharedSubscriptionFields = {
  id: z.number().int().min(1),
  marketplace: marketplaceCode,
  frequency: z.enum(FREQUENCIES),
  tag: z.string().nullable(),
  external_user_id: z.string().nullable(),
  status: z.enum(['active', 'paused_balance']).meta({ description: '`paused_balance` while the balance is below the monitoring price; resumes automatically after a top-up.' }),
  created_at: timestamp,
  alerts: z.array(alertRule).meta({ description: 'The change alerts, in order, with their state.' }),
  alert_url: z.string().nullable().meta({ description: 'Where `change` events are POSTed; null: they are recorded and listed only.' }),
};

const subscriptionFields = { ...sharedSubscriptionFields, asin: storedAsin };

/** Subscription as monitoring/add and monitoring/delete return it. */
export const subscription = z.object(subscriptionFields).meta({ id: 'Subscription', description: 'A monitoring subscription.' });

/** Subscription with `latest_observation`, as monitoring/list returns it. */
export const listedSubscription = z.object({
  ...subscriptionFields,
  latest_observation: product.nullable().meta({ description: 'The latest delivered observation; null before the first delivery.' }),
}).meta({ id: 'ListedSubscription', description: 'A subscription as monitoring/list returns it.' });

/** One row of tasks_ready (api/rest/envelope/tasks-ready.ts). */
export const tasksReadyRow = z.object({
  id: z.string().meta({ format: 'uuid' }),
  asin: storedAsin,
  marketplace: marketplaceCode,
  tag: z.string().nullable(),
  status_code: z.number().int().meta({ description: 'Final task code: 20000, 40402 or 50301.' }),
  date_posted: timestamp,
  date_completed: timestamp,
  endpoint: z.string().meta({ description: 'Path of task_get for the task.', examples: ['/v1/retail/product/task_get/01311530-8b7e-4c1d-9f2a-6f0e4c7d2b11'] }),
}).meta({ id: 'TasksReadyRow', description: 'A finished task_post task not yet collected.' });

const usageTotals = { requests: count, tasks: count, cost: usd };

const keyListing = {
  id: z.number().int().min(1).meta({ description: 'The `key_id` of DELETE /v1/appendix/keys/{key_id}.' }),
  prefix: z.string(),
  last4: z.string().meta({ description: 'Last four characters of the key.' }),
  label: z.string().nullable(),
  created_at: timestamp,
};

/** The user_data row (api/services/user-data.ts). */
export const accountData = z.object({
  login: z.string(),
  email: z.string(),
  balance: usd,
  plan: z.string(),
  limits: z.object({ requests_per_minute: count, tasks_per_minute: count }).meta({ description: 'Per-minute rate limits of the account.' }),
  rates: z.object({ task_post: usd, task_post_high: usd, live: usd, history: usd, monitoring: usd, search: usd, search_high: usd, search_live: usd, search_monitoring: usd }).meta({ description: 'Price table, USD per task (history: per body element; monitoring: per delivered observation; search and search_high: per results page posted; search_live: per live search; search_monitoring: per results page delivered).' }),
  usage: z.object({ today: z.object(usageTotals), this_month: z.object(usageTotals) }).meta({ description: 'UTC day and month so far.' }),
  api_keys: z.array(z.object(keyListing)).meta({ description: 'Active API keys (never the full key).' }),
  webhook_secret: z.string().meta({ description: 'Key of the webhook signatures (HMAC-SHA256).' }),
}).meta({ id: 'AccountData', description: 'The authenticated account.' });

/** The usage row (api/services/usage.ts). */
export const usageReport = z.object({
  date_from: z.string().meta({ format: 'date' }),
  date_to: z.string().meta({ format: 'date' }),
  days: z.array(z.object({ date: z.string().meta({ format: 'date' }), ...usageTotals })).meta({ description: 'Every UTC day of the range, days without usage as zeros.' }),
  endpoints: z.array(z.object({ endpoint: z.string(), ...usageTotals })).meta({ description: 'Totals per endpoint, by name.' }),
  totals: z.object(usageTotals),
}).meta({ id: 'UsageReport', description: 'Requests, tasks and cost (USD) of the range.' });

/** GET /v1/appendix/ledger's result (core/ledger.ts `LedgerItem`, api/services/ledger.ts). */
export const ledgerPage = z.object({
  date_from: z.string().meta({ format: 'date' }),
  date_to: z.string().meta({ format: 'date' }),
  total_count: count.meta({ description: 'Entries of the range.' }),
  offset: count,
  items: z.array(z.object({
    id: z.string().meta({ description: 'The entry\'s id (increasing).' }),
    created_at: timestamp,
    kind: z.enum(['charge', 'refund', 'topup', 'monitoring']),
    amount: usd.meta({ description: 'USD: negative for charges, positive for refunds and top-ups.' }),
    balance_after: usd,
    task_id: z.string().nullable(),
    subscription_id: z.number().int().nullable(),
    note: z.string().nullable(),
    reservation: z.object({
      key: z.string().meta({ description: '`r:<task id>` (GraphQL analytics field, history export) or `m:<subscription>:<run>:<n>` (monitoring run).' }),
      settlement: z.enum(['kept', 'refunded']).nullable().meta({ description: 'null while open; the reconciler settles what its request left open.' }),
      settled_at: timestamp.nullable(),
    }).nullable().meta({ description: 'A charge taken before its result existed, and how it was settled.' }),
    refund_of: z.string().nullable().meta({ description: 'On the refund of a reservation: the reservation\'s key.' }),
  })).meta({ description: 'Newest first.' }),
}).meta({ id: 'LedgerPage', description: 'The account\'s ledger entries of the range: the balance after each, and every reservation with its settlement.' });

/** A key as POST /v1/appendix/keys returns it: the only place the full key appears. */
export const createdKey = z.object({
  ...keyListing,
  key: z.string().meta({ description: 'The full API key, shown only here: only its hash is stored.' }),
}).meta({ id: 'CreatedKey' });

/** A key as DELETE /v1/appendix/keys/{key_id} returns it. */
export const revokedKey = z.object({ ...keyListing, revoked_at: timestamp }).meta({ id: 'RevokedKey' });

/** One row of /v1/appendix/marketplaces (api/rest/routes/appendix.routes.ts `marketplaceRows`). */
export const marketplaceRow = z.object({
  code: marketplaceCode,
  domain: z.string().meta({ examples: ['www.amazon.com'] }),
  currency: z.string().meta({ description: 'ISO 4217.' }),
  language: z.string().meta({ examples: ['en_US'] }),
  aliases: z.array(z.string()).meta({ description: 'Other names accepted for the code.' }),
}).meta({ id: 'Marketplace' });

/** One row of /v1/appendix/status (api/services/status.ts). */
export const marketplaceStatus = z.object({
  marketplace: marketplaceCode,
  available: z.boolean().nullable().meta({ description: 'Null when there is not enough recent data.' }),
  status: z.enum(['operational', 'degraded', 'unavailable', 'unknown']),
  success_rate_24h: z.number().min(0).max(1).nullable().meta({ description: 'Share of product page reads of the last 24 hours that succeeded (0..1); null without reads.' }),
  source_reads_24h: count.meta({ description: 'Product page reads of the last 24 hours.' }),
  median_completion_minutes_24h: z.number().min(0).nullable().meta({ description: 'Median minutes from task_post to completion over the last 24 hours; null when none completed.' }),
  queued_jobs: count.meta({ description: 'Collection jobs queued or running now.' }),
  search_reads_24h: count.meta({ description: 'Search results page reads of the last 24 hours (counted apart from product page reads).' }),
  search_success_rate_24h: z.number().min(0).max(1).nullable().meta({ description: 'Share of search results page reads of the last 24 hours that succeeded (a results page or a no-results page; 0..1); null without reads.' }),
}).meta({ id: 'MarketplaceStatus', description: 'Availability of one marketplace (aggregates only).' });

/** One row of /v1/appendix/errors (core/status-codes.ts). */
export const statusCodeRow = z.object({
  status_code: z.number().int(),
  status_message: z.string(),
  http_status: z.number().int().meta({ description: 'HTTP status when the code is answered at request level.' }),
  description: z.string(),
}).meta({ id: 'StatusCode' });

/** The access_request result row. */
export const accessRequestReceipt = z.object({
  id: z.number().int().min(1),
  status: z.literal('received'),
}).meta({ id: 'AccessRequestReceipt' });

/** The credentials link's result row. */
export const credentials = z.object({
  login: z.string(),
  api_key: z.string().meta({ description: 'Shown once: the link stops working after this answer.' }),
}).meta({ id: 'Credentials' });

/** GET /health (api/rest/routes/system.routes.ts). */
export const health = z.looseObject({
  status: z.literal('ok'),
  version: z.string(),
  uptime_seconds: count,
  database: z.boolean().meta({ description: 'The database answered.' }),
  queue: z.looseObject({
    queued_tasks: z.record(z.string(), count).meta({ description: 'Queued or running tasks by priority (`"1"`, `"2"`).' }),
    oldest_queued_age_seconds: count.nullable(),
  }),
}).meta({ id: 'Health', description: 'Liveness plus queue visibility; more properties may be added.' });

/** GET /ready: the Readiness document. */
export const readiness = z.object({
  status: z.enum(['ready', 'not_ready']),
  database: z.boolean().meta({ description: 'The database answered.' }),
  pending_migrations: z.array(z.string()).meta({ description: 'Migrations not applied yet.' }),
}).meta({ id: 'Readiness' });

/**
 * True when a schema's output O describes the type T: same keys, and every O is a T (O may be
 * narrower, e.g. the enum of marketplace codes for a `string`).
 */
type Describes<O, T> = [O] extends [T] ? ([keyof O] extends [keyof T] ? ([keyof T] extends [keyof O] ? true : false) : false) : false;
/** Fails to compile unless T is `true`. */
type Assert<T extends true> = T;
export type _SchemasDescribeTypes = [
  Assert<Describes<z.output<typeof product>, Product>>,
  Assert<Describes<z.output<typeof subscription>, Omit<ProductSubscriptionObject, 'latest_observation'>>>,
  Assert<Describes<z.output<typeof listedSubscription>, Required<ProductSubscriptionObject>>>,
  Assert<Describes<z.output<typeof marketplaceStatus>, MarketplaceStatusRow>>,
  Assert<Describes<z.output<typeof statusCodeRow>, StatusCodeRow>>,
];
