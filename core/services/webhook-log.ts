/**
 * The webhook delivery log and redeliveries, and a subscription's change events: the one
 * implementation behind GET /v1/appendix/webhook_deliveries, POST …/{event_id}/redeliver, GET
 * /v1/retail/monitoring/change_events and their GraphQL fields. Typed results, typed errors
 * (DomainError); the presenters render them.
 */
import type { Db } from '../db/db.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { WebhookLauncher } from '../temporal/webhook-launcher.js';
import type { WebhookKind } from '../domain/webhook-messages.js';
import { accountEvent, listChangeEvents, listDeliveryAttempts, type ChangeEventObject, type ChangeEventRows, type DeliveryAttemptObject } from '../webhook-events.js';
import type { RedeliveryLimits } from '../webhooks/redelivery-limits.js';
import { encodeChangeCursor, encodeDeliveryCursor } from '../validation/webhook-log.js';

/** One page of the account's delivery log. */
export interface DeliveryLogPage {
  deliveries: DeliveryAttemptObject[];
  /** The cursor of the next page; null on the last. */
  next_cursor: string | null;
}

/** The account's delivery attempts, newest first, from `before` (a decoded cursor) on. */
export async function deliveryLog(db: Db, accountId: number, page: { limit: number; before?: bigint; kind?: WebhookKind }): Promise<DeliveryLogPage> {
  const { rows, more } = await listDeliveryAttempts(db, accountId, page);
  return { deliveries: rows, next_cursor: more ? encodeDeliveryCursor(rows.at(-1)!.id) : null };
}

/** One page of a subscription's change events. */
export interface ChangeEventsPage {
  change_events: ChangeEventObject[];
  next_cursor: string | null;
}

/**
 * The change events of one of the account's subscriptions, newest first.
 * @throws DomainError NOT_FOUND when the account has no such subscription.
 */
export async function subscriptionChangeEvents(
  db: Db,
  accountId: number,
  page: { subscriptionId: number; limit: number; before?: { at: Date; id: string } },
): Promise<ChangeEventsPage> {
  const owned = await db.prisma.subscription.findFirst({ where: { id: page.subscriptionId, accountId }, select: { id: true } });
  if (!owned) throw new DomainError('NOT_FOUND', { message: 'Not Found. No such subscription.' });
  return changeEventsPage((await listChangeEvents(db, [page.subscriptionId], page)).get(page.subscriptionId)!);
}

/** The page of events as listed, with the cursor of the next page. */
export function changeEventsPage({ rows, more }: ChangeEventRows): ChangeEventsPage {
  return {
    change_events: rows.map(({ cursor: _cursor, ...row }) => row),
    next_cursor: more ? encodeChangeCursor(rows.at(-1)!.cursor) : null,
  };
}

/** A redelivery started: the event, its kind and where it goes. */
export interface RedeliveryObject {
  event_id: string;
  kind: WebhookKind;
  url: string;
}

export interface RedeliveryDeps {
  db: Db;
  /** Starts the delivery workflow. */
  webhooks: WebhookLauncher;
  limits: RedeliveryLimits;
}

/**
 * Starts a new delivery of one of the account's stored events: the same event id (receivers
 * deduplicate by `X-Event-Id`), signed anew with the account's current secret at each attempt, on
 * the usual retry schedule. A postback sends the task's task_get envelope as it is now.
 * @throws DomainError NOT_FOUND (not a UUID, unknown, or another account's event), BAD_REQUEST
 *   (the event has no URL: a change event of a subscription without alert_url), RATE_LIMITED
 *   (REDELIVERIES_PER_MINUTE; Retry-After), or Temporal's error when the delivery cannot start
 *   (the redelivery is then not counted).
 */
export async function redeliverEvent(deps: RedeliveryDeps, accountId: number, eventId: string): Promise<RedeliveryObject> {
  const event = isUuid(eventId) ? await accountEvent(deps.db, accountId, eventId.toLowerCase()) : null;
  if (!event) throw new DomainError('NOT_FOUND', { message: 'Not Found. No such event.' });
  if (!event.url) throw new DomainError('BAD_REQUEST', { message: 'Bad Request. The event has no URL to deliver to (the subscription had no alert_url when it was recorded).' });
  await deps.limits.consume(accountId);
  try {
    await deps.webhooks.redeliver({ eventId: event.id, kind: event.kind as WebhookKind, accountId });
  } catch (error) {
    await deps.limits.giveBack(accountId);
    throw error;
  }
  return { event_id: event.id, kind: event.kind as WebhookKind, url: event.url };
}
