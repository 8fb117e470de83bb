/**
 * Webhook signatures (api-spec.md "Events"): header `X-Signature: sha256=<lowercase hex
 * HMAC-SHA256>` of the signed message (a postback's raw body, a pingback's full requested URL),
 * keyed with the account's webhook secret; every delivery carries a fixed User-Agent.
 */
import { createHmac } from 'node:crypto';
import { API_VERSION } from '../version.js';

/** The fixed User-Agent of every delivery. */
export const WEBHOOK_USER_AGENT = `retail-data-api-webhooks/${API_VERSION}`;

/** Name of the signature header. */
export const SIGNATURE_HEADER = 'X-Signature';

/** `sha256=` + lowercase hex HMAC-SHA256 of `message` (UTF-8) keyed with `secret`. */
export function signWebhook(message: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(message, 'utf8').digest('hex')}`;
}
