/**
 * Response objects of change alerts and the webhook delivery log, for /openapi.json only: a
 * subscription's alert rule, a change event (the body POSTed to alert_url), one delivery attempt
 * and a redelivery. Compile-time checks below keep each schema equal to its TypeScript type.
 */
import { z } from 'zod';
import type { AlertRuleObject } from '../../../core/alerts.js';
import { ALERT_TYPES, type ChangeEventBody, type ChangeSide } from '../../../core/domain/alert-rules.js';
import { AVAILABILITY_STATUSES } from '../../../core/product.js';
import { WEBHOOK_KINDS } from '../../../core/domain/webhook-messages.js';
import type { ChangeEventObject, DeliveryAttemptObject } from '../../../core/webhook-events.js';
import type { RedeliveryObject } from '../../../core/services/webhook-log.js';

const timestamp = z.string().meta({ format: 'date-time', examples: ['2026-01-31T15:30:00.000Z'] });
const uuid = z.string().meta({ format: 'uuid' });

/** ChangeSide: one side of a change, the rule's field at one observation. */
export const changeSide = z.object({
  observed_at: timestamp.meta({ description: 'When that observation\'s page was read.' }),
  price: z.object({ amount: z.number(), currency: z.string() }).optional().meta({ description: 'price_below, price_drop_percent.' }),
  bsr_rank: z.number().int().min(1).optional().meta({ description: 'bsr_below, bsr_change_percent.' }),
  availability: z.enum(AVAILABILITY_STATUSES.filter((s) => s !== 'unknown')).optional().meta({ description: 'availability_change (low_stock counts as in stock).' }),
  buy_box: z.object({ seller_name: z.string().nullable(), seller_id: z.string().nullable() }).optional().meta({ description: 'buy_box_change: the featured offer\'s seller.' }),
  content_hash: z.string().regex(/^[0-9a-f]{64}$/).optional().meta({ description: 'content_change: SHA-256 of title, feature bullets and images.' }),
  organic_rank: z.number().int().min(1).nullable().optional().meta({ description: 'Rank rules (keyword subscriptions): the tracked ASIN\'s organic rank across the pages read (non-sponsored items counted in page order); null when it is on none of them.' }),
  sponsored: z.boolean().optional().meta({ description: 'Rank rules: whether the tracked ASIN held a sponsored slot on the pages read.' }),
}).meta({ id: 'ChangeSide', description: 'The rule\'s field at one observation (or keyword run): only the field(s) of the rule\'s type are present.' });

/** A subscription's alert rule with its state. */
export const alertRule = z.object({
  id: z.number().int().min(1),
  type: z.enum(ALERT_TYPES),
  value: z.number().nullable().meta({ description: 'Threshold or percent; null for the change types.' }),
  asin: z.string().optional().meta({ description: 'Rank rules of keyword subscriptions: the tracked ASIN the rule judges.' }),
  armed: z.boolean().meta({ description: 'False after the rule fired, until an observation outside its condition re-arms it.' }),
  last_known: changeSide.nullable().meta({ description: 'The last known value of the rule\'s field; null before the first.' }),
  triggered_count: z.number().int().min(0).meta({ description: 'Change events the rule recorded.' }),
  last_triggered_at: timestamp.nullable(),
}).meta({ id: 'AlertRule', description: 'An alert rule of a subscription and its state.' });

/** The body of a change event (POSTed to alert_url). */
export const changeEventBody = z.object({
  event_id: uuid.meta({ description: 'Also in the `X-Event-Id` header; the same on every attempt and redelivery: deduplicate by it.' }),
  kind: z.literal('change'),
  subscription_id: z.number().int().min(1),
  asin: z.string().meta({ description: 'The product; for a rank rule, the tracked ASIN it judges.' }),
  marketplace: z.string(),
  keyword: z.string().optional().meta({ description: 'Keyword subscriptions: the keyword.' }),
  rule: z.object({ id: z.number().int().min(1), type: z.enum(ALERT_TYPES), value: z.number().nullable(), asin: z.string().optional() }),
  before: changeSide.meta({ description: 'The last known value before the change.' }),
  after: changeSide.meta({ description: 'The value in the observation that fired the rule.' }),
  observed_at: timestamp.meta({ description: 'When the observation that fired the rule was read (`after.observed_at`).' }),
}).meta({ id: 'ChangeEvent', description: 'A `change` event: POSTed to the subscription\'s alert_url as JSON, `X-Signature` over the raw body as for postbacks, `X-Event-Id` its event_id.' });

/** A change event as GET /v1/retail/monitoring/change_events lists it. */
export const listedChangeEvent = z.object({
  event: changeEventBody,
  url: z.string().nullable().meta({ description: 'Where it was to be delivered; null when the subscription had no alert_url.' }),
  created_at: timestamp,
}).meta({ id: 'ListedChangeEvent' });

/** One page of change events. */
export const changeEventPage = z.object({
  change_events: z.array(listedChangeEvent).meta({ description: 'Newest first.' }),
  next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
}).meta({ id: 'ChangeEventPage' });

/** One delivery attempt of the log. */
export const deliveryAttempt = z.object({
  id: z.string().meta({ description: 'Position in the log.' }),
  event_id: uuid.nullable().meta({ description: 'The event delivered (`X-Event-Id`); what redeliver takes.' }),
  kind: z.enum(WEBHOOK_KINDS),
  url: z.string(),
  attempt: z.number().int().min(1).meta({ description: '1 for a delivery\'s first attempt; a redelivery counts again from 1.' }),
  redelivery: z.boolean(),
  outcome: z.enum(['delivered', 'failed', 'refused']).meta({ description: '`delivered` (2xx), `failed` (retried while retries remain), `refused` (private address, port, disabled account: not retried).' }),
  http_status: z.number().int().nullable().meta({ description: 'The receiver\'s HTTP status; null when no answer arrived.' }),
  error: z.string().nullable(),
  latency_ms: z.number().int().min(0),
  next_retry_at: timestamp.nullable().meta({ description: 'When the next attempt is due after this failed one; null when none follows.' }),
  task_id: uuid.nullable().meta({ description: 'Postbacks and pingbacks: the task.' }),
  subscription_id: z.number().int().nullable().meta({ description: 'Change events: the subscription.' }),
  created_at: timestamp,
}).meta({ id: 'DeliveryAttempt', description: 'One webhook delivery attempt.' });

/** One page of the delivery log. */
export const deliveryPage = z.object({
  deliveries: z.array(deliveryAttempt).meta({ description: 'Newest first.' }),
  next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
}).meta({ id: 'DeliveryPage' });

/** A redelivery started. */
export const redelivery = z.object({
  event_id: uuid,
  kind: z.enum(WEBHOOK_KINDS),
  url: z.string().meta({ description: 'Where it is delivered.' }),
}).meta({ id: 'Redelivery', description: 'A new delivery of the event has started (signed anew, same event id); its attempts appear in the delivery log with `redelivery: true`.' });

type Describes<O, T> = [O] extends [T] ? ([keyof O] extends [keyof T] ? ([keyof T] extends [keyof O] ? true : false) : false) : false;
type Assert<T extends true> = T;
export type _AlertSchemasDescribeTypes = [
  Assert<Describes<z.output<typeof changeSide>, ChangeSide>>,
  Assert<Describes<z.output<typeof alertRule>, AlertRuleObject>>,
  Assert<Describes<z.output<typeof changeEventBody>, ChangeEventBody>>,
  Assert<Describes<z.output<typeof listedChangeEvent>, ChangeEventObject>>,
  Assert<Describes<z.output<typeof deliveryAttempt>, DeliveryAttemptObject>>,
  Assert<Describes<z.output<typeof redelivery>, RedeliveryObject>>,
];
