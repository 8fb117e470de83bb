/**
 * Webhook signatures and pingback URLs (api-spec.md "Events"), checked with node:crypto directly.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expandPingbackUrl } from '../../core/webhooks/pingback-url.js';
import { WEBHOOK_USER_AGENT, signWebhook } from '../../core/webhooks/signing.js';
import { checkWebhookUrl } from '../../core/webhooks/url-policy.js';
import { API_VERSION } from '../../core/version.js';

describe('webhook signing', () => {
  it('is sha256= and the lowercase hex HMAC-SHA256 of the message with the account secret', () => {
    const signature = signWebhook('{"a":"é"}', 'secret');
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    const expected = Buffer.from(`sha256=${createHmac('sha256', 'secret').update(Buffer.from('{"a":"é"}', 'utf8')).digest('hex')}`);
    expect(timingSafeEqual(Buffer.from(signature), expected)).toBe(true);
    expect(signWebhook('{"a":"é"}', 'other')).not.toBe(signature);
  });

  it('uses a fixed User-Agent', () => {
    expect(WEBHOOK_USER_AGENT).toBe(`retail-data-api-webhooks/${API_VERSION}`);
  });
});

describe('pingback URL', () => {
  const id = '11221530-aaaa-4bbb-8ccc-dddddddddddd';

  it('replaces $id and $tag anywhere, the tag URL-encoded, empty when null', () => {
    expect(expandPingbackUrl('https://h.example/$id/ping?id=$id&tag=$tag', { id, tag: 'a b&c/é' }))
      .toBe(`https://h.example/${id}/ping?id=${id}&tag=a%20b%26c%2F%C3%A9`);
    expect(expandPingbackUrl('https://h.example/?tag=$tag', { id, tag: null })).toBe('https://h.example/?tag=');
  });

  it('does not expand a $id inside the tag', () => {
    expect(expandPingbackUrl('https://h.example/?t=$tag&i=$id', { id, tag: '$id' })).toBe(`https://h.example/?t=%24id&i=${id}`);
  });

  it('is requested and signed in its encoded form', () => {
    const raw = expandPingbackUrl('https://Bücher.example:443/p ä/$id?tag=$tag#frag', { id, tag: 'x y' });
    const verdict = checkWebhookUrl(raw, [], { maxLength: Infinity });
    expect(verdict.ok && verdict.url.href).toBe(`https://xn--bcher-kva.example/p%20%C3%A4/${id}?tag=x%20y`);
  });
});
