/**
 * The texts of the operators' view (core/domain/operator-view.ts): what a summary may show of
 * hostile or secret-bearing input. Summaries fit Temporal's 200 bytes without splitting a character;
 * e-mail addresses never show; webhook URLs lose user info, query, fragment and token-like segments.
 */
import { describe, expect, it } from 'vitest';
import {
  clipUtf8, deliverySummary, displayUrl, subscriptionSummary, taskSummary, utf8Bytes, withoutEmails,
} from '../../core/domain/operator-view.js';

describe('operator view texts', () => {
  it('counts UTF-8 bytes and clips without splitting a character', () => {
    expect(utf8Bytes('aé€😀')).toBe(1 + 2 + 3 + 4);
    expect(utf8Bytes('\uD800')).toBe(3); // a lone surrogate is encoded as U+FFFD
    const clipped = clipUtf8('😀'.repeat(100), 200);
    expect(utf8Bytes(clipped)).toBeLessThanOrEqual(200);
    expect(clipped).toBe(`${'😀'.repeat(49)}…`);
    expect(clipUtf8('short', 200)).toBe('short');
  });

  it('replaces every e-mail address', () => {
    expect(withoutEmails('ask ops@example.com or a.b+c@sub.example.org!')).toBe('ask <e-mail> or <e-mail>!');
    expect(withoutEmails('no mail @ here, user@localhost')).toBe('no mail @ here, user@localhost');
  });

  it('shows webhook URLs without user info, query, fragment or token-like path segments', () => {
    expect(displayUrl('https://user:pw@Hooks.Example.com:8443/hooks/T0123/B456/xyzsecret?token=abc#f')).toBe('https://hooks.example.com:8443/hooks/…/…/xyzsecret');
    expect(displayUrl('http://127.0.0.1:9099/ping?id=$id&tag=$tag')).toBe('http://127.0.0.1:9099/ping');
    expect(displayUrl('https://example.com/a-very-long-path-segment-of-letters/x')).toBe('https://example.com/…/x');
    expect(displayUrl('https://example.com/to/ops@example.com')).toBe('https://example.com/to/<e-mail>');
    expect(displayUrl('not a url')).toBeNull();
  });

  it('builds one-line summaries within 200 bytes', () => {
    expect(taskSummary({ taskId: 't', asin: 'B07CL39Z8Q', marketplace: 'com', accountId: 7, login: 'demo', tag: 'op-a' })).toBe('task B07CL39Z8Q on com · account 7 demo · tag op-a');
    expect(taskSummary({ taskId: 't', asin: 'B07CL39Z8Q', marketplace: 'de', accountId: 7, endpoint: 'live', priority: 2 })).toBe('live read B07CL39Z8Q on de · account 7 · priority 2');
    expect(subscriptionSummary({ subscriptionId: 12, asin: 'B07CL39Z8Q', marketplace: 'com', frequency: 'hourly', accountId: 7 })).toBe('hourly subscription 12: B07CL39Z8Q on com · account 7');
    expect(deliverySummary({ taskId: 'abc', kind: 'change', accountId: 7, target: 'https://example.com/hook' })).toBe('change of task abc to https://example.com/hook · account 7');
    const long = taskSummary({ taskId: 't', asin: 'B07CL39Z8Q', marketplace: 'com', accountId: 7, login: 'l'.repeat(64), tag: '😀'.repeat(255) });
    expect(utf8Bytes(long)).toBeLessThanOrEqual(200);
    expect(long).toContain('· tag 😀');
  });
});
