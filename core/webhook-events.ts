/**
 * Webhook events and the delivery log (tables `webhook_events`, `webhook_deliveries`). Every
 * delivery delivers a stored event whose id travels in `X-Event-Id`: a task's postback or pingback
 * (one event per task and kind, made on its first attempt) or a `change` event of an alert rule
 * (made when the rule fires, core/alerts.ts). Every attempt is one row of the log, listed per
 * account newest first.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from './db/db.js';
import type { Prisma } from './db/prisma.js';
import type { ChangeEventBody } from './domain/alert-rules.js';
import type { TaskWebhookKind, WebhookKind, WebhookOutcome } from './domain/webhook-messages.js';

/** A stored event with what a delivery needs of its account. */
export type StoredEvent = Prisma.WebhookEventGetPayload<{ include: { account: { select: { webhookSecret: true; disabled: true } } } }>;

/**
 * The id of the task's event of `kind`, made on first use (a delivery started before events
 * existed gets one on its next attempt). Safe under concurrent calls: one event per task and kind.
 */
export async function taskEventId(db: Db, task: { id: string; accountId: number }, kind: TaskWebhookKind, url: string): Promise<string> {
  const where = { taskId_kind: { taskId: task.id, kind } };
  const found = await db.prisma.webhookEvent.findUnique({ where, select: { id: true } });
  if (found) return found.id;
  try {
    return (await db.prisma.webhookEvent.create({ data: { id: randomUUID(), accountId: task.accountId, kind, taskId: task.id, url }, select: { id: true } })).id;
  } catch (error) {
    if ((error as { code?: string }).code !== 'P2002') throw error;
    return (await db.prisma.webhookEvent.findUniqueOrThrow({ where, select: { id: true } })).id;
  }
}

/** The stored event with its account's secret and state; null when it does not exist (any more). */
export async function storedEvent(db: Db, eventId: string): Promise<StoredEvent | null> {
  return db.prisma.webhookEvent.findUnique({ where: { id: eventId }, include: { account: { select: { webhookSecret: true, disabled: true } } } });
}

/** One attempt as the delivery activity records it. */
export interface AttemptRecord {
  taskId: string | null;
  eventId: string | null;
  accountId: number | null;
  kind: WebhookKind;
  url: string;
  attempt: number;
  outcome: WebhookOutcome;
  httpStatus: number | null;
  /** Latency of the attempt, ms. */
  durationMs: number;
  error?: string | null;
  nextRetryAt: Date | null;
  redelivery: boolean;
}

/** Appends one attempt to the log. */
export async function recordAttempt(db: Db, record: AttemptRecord): Promise<void> {
  await db.prisma.webhookDelivery.create({ data: record });
}

/** One attempt as GET /v1/appendix/webhook_deliveries and GraphQL `webhookDeliveries` list it. */
export interface DeliveryAttemptObject {
  /** Position in the log (decimal string). */
  id: string;
  /** The event delivered: the `X-Event-Id` the receiver got, and what `redeliver` takes. */
  event_id: string | null;
  kind: WebhookKind;
  url: string;
  /** 1 for a delivery's first attempt (a redelivery counts again from 1). */
  attempt: number;
  redelivery: boolean;
  /** `delivered` (2xx), `failed` (retried while retries remain), `refused` (not retried). */
  outcome: WebhookOutcome;
  /** The receiver's HTTP status; null when no answer arrived. */
  http_status: number | null;
  /** Why the attempt failed or was refused, when known. */
  error: string | null;
  /** ms from sending to the answer (or the failure). */
  latency_ms: number;
  /** When the next attempt is due, for a failed attempt that will be retried. */
  next_retry_at: string | null;
  /** The task of a postback or pingback. */
  task_id: string | null;
  /** The subscription of a change event. */
  subscription_id: number | null;
  created_at: string;
}

/** Which page of the log `listDeliveryAttempts` reads. */
export interface DeliveryLogPage {
  /** 1..1000 rows. */
  limit: number;
  /** Only rows older than this log position (the previous page's last id). */
  before?: bigint;
  kind?: WebhookKind;
}

/**
 * The account's attempts, newest first (index on account and id): at most `limit`, and whether
 * more follow.
 */
export async function listDeliveryAttempts(db: Db, accountId: number, page: DeliveryLogPage): Promise<{ rows: DeliveryAttemptObject[]; more: boolean }> {
  const rows = await db.prisma.webhookDelivery.findMany({
    where: { accountId, ...(page.before === undefined ? {} : { id: { lt: page.before } }), ...(page.kind ? { kind: page.kind } : {}) },
    orderBy: { id: 'desc' },
    take: page.limit + 1,
    include: { event: { select: { subscriptionId: true } } },
  });
  const more = rows.length > page.limit;
  return {
    more,
    rows: rows.slice(0, page.limit).map((r) => ({
      id: r.id.toString(), event_id: r.eventId, kind: r.kind as WebhookKind, url: r.url, attempt: r.attempt, redelivery: r.redelivery,
      outcome: r.outcome as WebhookOutcome, http_status: r.httpStatus, error: r.error, latency_ms: r.durationMs,
      next_retry_at: r.nextRetryAt?.toISOString() ?? null, task_id: r.taskId, subscription_id: r.event?.subscriptionId ?? null,
      created_at: r.createdAt.toISOString(),
    })),
  };
}

/** The account's event, or null when it has none of that id. */
export async function accountEvent(db: Db, accountId: number, eventId: string) {
  return db.prisma.webhookEvent.findFirst({ where: { id: eventId, accountId } });
}

/** Which page of a subscription's change events `listChangeEvents` reads (newest first). */
export interface ChangeEventPage {
  limit: number;
  /** Only events older than this one (the previous page's last), by (created_at, id). */
  before?: { at: Date; id: string };
}

/** A change event as listed: its body as delivered, and when it was recorded. */
export interface ChangeEventObject {
  /** The body POSTed to alert_url. */
  event: ChangeEventBody;
  /** Whether it was to be delivered (the subscription had an alert_url when it fired). */
  url: string | null;
  created_at: string;
}

/** One page of one subscription's change events. */
export interface ChangeEventRows {
  rows: (ChangeEventObject & { cursor: { at: Date; id: string } })[];
  /** More events follow the page. */
  more: boolean;
}

/**
 * The same page of change events (newest first, by created_at then id) for each of
 * `subscriptionIds`, in one query whatever their number: a LATERAL join reads at most `limit` + 1
 * events per subscription through the (subscription_id, created_at) index. GraphQL batches a page
 * of subscriptions through it; REST asks for one.
 */
export async function listChangeEvents(db: Db, subscriptionIds: number[], page: ChangeEventPage): Promise<Map<number, ChangeEventRows>> {
  const out = new Map<number, ChangeEventRows>(subscriptionIds.map((id) => [id, { rows: [], more: false }]));
  if (subscriptionIds.length === 0) return out;
  const params: unknown[] = [subscriptionIds, page.limit + 1];
  let after = '';
  if (page.before) {
    params.push(page.before.at, page.before.id);
    after = 'AND (e.created_at, e.id) < ($3::timestamptz, $4::uuid)';
  }
  const rows = await db.prisma.$queryRawUnsafe<{ subscription_id: number; id: string; url: string | null; body: string; created_at: Date }[]>(
    `SELECT s.id AS subscription_id, page.id::text AS id, page.url, page.body, page.created_at
       FROM unnest($1::int[]) WITH ORDINALITY AS s(id, n)
       CROSS JOIN LATERAL (
         SELECT e.id, e.url, e.body, e.created_at FROM webhook_events e
          WHERE e.subscription_id = s.id AND e.kind = 'change' ${after}
          ORDER BY e.created_at DESC, e.id DESC
          LIMIT $2
       ) page
      ORDER BY s.n, page.created_at DESC, page.id DESC`,
    ...params,
  );
  for (const row of rows) {
    const entry = out.get(row.subscription_id)!;
    if (entry.rows.length === page.limit) {
      entry.more = true;
      continue;
    }
    entry.rows.push({ event: JSON.parse(row.body) as ChangeEventBody, url: row.url, created_at: row.created_at.toISOString(), cursor: { at: row.created_at, id: row.id } });
  }
  return out;
}
