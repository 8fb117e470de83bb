/**
 * Query strings and path parameters of the webhook delivery log and of a subscription's change
 * events, with their opaque cursors (base64url text): a cursor that is not one of ours fails with
 * 40501 naming `cursor`, like any other bad parameter.
 */
import { z } from 'zod';
import { WEBHOOK_KINDS } from '../domain/webhook-messages.js';
import { isUuid } from '../ids.js';
import * as f from './fields.js';

/** Cursor of the delivery log: base64url of the last listed attempt's id. */
export function encodeDeliveryCursor(id: string | bigint): string {
  return Buffer.from(`d${id}`).toString('base64url');
}

/** The log position a delivery cursor names; null when it is not one. */
export function decodeDeliveryCursor(cursor: string): bigint | null {
  const match = /^d(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? BigInt(match[1]!) : null;
}

/** Cursor of a subscription's change events: base64url of the last listed event's time and id. */
export function encodeChangeCursor(position: { at: Date; id: string }): string {
  return Buffer.from(`c${position.at.getTime()}:${position.id}`).toString('base64url');
}

/** The position a change-event cursor names; null when it is not one. */
export function decodeChangeCursor(cursor: string): { at: Date; id: string } | null {
  const match = /^c(\d{1,15}):([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match && isUuid(match[2]!) ? { at: new Date(Number(match[1])), id: match[2]! } : null;
}

/** A cursor parameter: at most 200 characters, decoded by `decode` (null → refused). */
const cursorOf = <T>(decode: (cursor: string) => T | null) => z.string().max(200)
  .transform((text, ctx) => {
    const position = decode(text);
    if (position !== null) return position;
    ctx.addIssue({ code: 'custom', message: 'not a cursor of this list' });
    return z.NEVER;
  })
  .meta({ description: 'The `next_cursor` of the previous page; absent: the first page.' });

/** GET /v1/appendix/webhook_deliveries query. */
export const webhookDeliveriesQuery = z.object({
  limit: f.optionalTextInteger(1, 1000, 100, 'Attempts per page, newest first.'),
  cursor: cursorOf(decodeDeliveryCursor).optional(),
  kind: z.enum(WEBHOOK_KINDS).optional().meta({ description: 'Only attempts of this kind: `postback`, `pingback` (task_post) or `change` (alert rules).' }),
});

/** POST /v1/appendix/webhook_deliveries/{event_id}/redeliver path. */
export const redeliverParams = z.object({
  event_id: z.string().meta({ format: 'uuid', description: 'The `event_id` of a delivery of the account (delivery log, `X-Event-Id`). Unknown ids, ids of another account and anything that is not a UUID answer HTTP 404 / 40400.' }),
});

/** GET /v1/retail/monitoring/change_events query. */
export const changeEventsQuery = z.object({
  subscription_id: f.textInteger(1, 2_147_483_647, 'The subscription (monitoring/add result `id`); not one of the account\'s → HTTP 404 / 40400.', /^[1-9]\d{0,9}$/),
  limit: f.optionalTextInteger(1, 1000, 100, 'Events per page, newest first.'),
  cursor: cursorOf(decodeChangeCursor).optional(),
});
