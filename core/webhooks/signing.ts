/**
 * Webhook signatures (api-spec.md "Events"): header `X-Signature: sha256=<lowercase hex
 * HMAC-SHA256>` of the signed message (a postback's raw body, a pingback's full requested URL),
 * keyed with the account's webhook secret; every delivery carries a fixed User-Agent and the id of
 * the event it delivers.
 */
import { createHmac } from 'node:crypto';
import { API_VERSION } from '../version.js';

/** The fixed User-Agent of every delivery. */
export const WEBHOOK_USER_AGENT = `retail-data-api-webhooks/${API_VERSION}`;

/** Name of the signature header. */
export const SIGNATURE_HEADER = 'X-Signature';

/**
 * Name of the header carrying the delivered event's id (a UUID): the same on every attempt and
 * every redelivery of one event (a task's postback, its pingback, a change event), so receivers
 * deduplicate by it.
 */
export const EVENT_ID_HEADER = 'X-Event-Id';

/** `sha256=` + lowercase hex HMAC-SHA256 of `message` (UTF-8) keyed with `secret`. */
export function signWebhook(message: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(message, 'utf8').digest('hex')}`;
}
