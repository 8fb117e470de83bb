/**
 * The webhook URL rules (api-spec.md "Events": URL acceptance), one refused class at a time, the
 * WEBHOOK_ALLOWLIST exemption, and the encoded form that is requested and signed.
 */
import { describe, expect, it } from 'vitest';
import { addressRange, checkWebhookUrl, isAllowlisted, isPublicAddress } from '../../core/webhooks/url-policy.js';

const refusal = (raw: string, allowlist: string[] = []) => {
  const verdict = checkWebhookUrl(raw, allowlist);
  return verdict.ok ? 'accepted' : verdict.reason;
};

describe('webhook URL policy', () => {
  it('accepts public http and https URLs, IDN hosts and public IP literals', () => {
    for (const url of [
      'https://hooks.example.com/postback?id=$id&tag=$tag',
      'http://example.org:80/a/b',
      'https://example.org:443/a/b',
      'https://bücher.example/ä',
      'http://8.8.8.8/x',
      'http://[2606:4700:4700::1111]/x',
      'http://[::ffff:8.8.8.8]/x',
    ]) expect(refusal(url), url).toBe('accepted');
  });

  it('refuses schemes other than http and https', () => {
    for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'javascript:alert(1)', 'gopher://example.com/', 'ws://example.com/']) {
      expect(refusal(url), url).toBe('scheme');
    }
  });

  it('refuses credentials in the URL', () => {
    expect(refusal('https://user:pass@example.com/x')).toBe('credentials');
    expect(refusal('https://user@example.com/x')).toBe('credentials');
    expect(refusal('https://:pass@example.com/x')).toBe('credentials');
  });

  it('refuses private, loopback, link-local and every other non-public IPv4 address, in any spelling', () => {
    const cases: [string, string][] = [
      ['http://127.0.0.1/', 'loopback'], ['http://127.1/', 'loopback'], ['http://0x7f.1/', 'loopback'], ['http://2130706433/', 'loopback'],
      ['http://%31%32%37.0.0.1/', 'loopback'],
      ['http://10.1.2.3/', 'private'], ['http://172.16.0.1/', 'private'], ['http://192.168.1.1/', 'private'],
      ['http://169.254.169.254/latest/meta-data', 'linkLocal'],
      ['http://100.64.0.1/', 'carrierGradeNat'],
      ['http://0.0.0.0/', 'unspecified'],
      ['http://224.0.0.1/', 'multicast'],
      ['http://255.255.255.255/', 'broadcast'],
      ['http://192.0.2.1/', 'reserved'], ['http://198.18.0.1/', 'reserved'], ['http://240.0.0.1/', 'reserved'],
    ];
    for (const [url, range] of cases) {
      const verdict = checkWebhookUrl(url, []);
      expect(verdict, url).toMatchObject({ ok: false, reason: 'non_public_address' });
      expect(verdict.ok ? '' : verdict.detail, url).toContain(`(${range})`);
    }
  });

  it('refuses non-public IPv6 addresses, IPv4-mapped ones included', () => {
    const cases: [string, string][] = [
      ['http://[::1]/', 'loopback'], ['http://[::]/', 'unspecified'],
      ['http://[fe80::1]/', 'linkLocal'], ['http://[fc00::1]/', 'uniqueLocal'], ['http://[fd12:3456::1]/', 'uniqueLocal'],
      ['http://[ff02::1]/', 'multicast'],
      ['http://[::ffff:127.0.0.1]/', 'loopback'], ['http://[::ffff:10.0.0.1]/', 'private'], ['http://[::ffff:169.254.169.254]/', 'linkLocal'],
      ['http://[::127.0.0.1]/', 'ipv4Compatible'],
      ['http://[64:ff9b::a00:1]/', 'rfc6052'],
      ['http://[2001:db8::1]/', 'reserved'],
    ];
    for (const [url, range] of cases) {
      const verdict = checkWebhookUrl(url, []);
      expect(verdict, url).toMatchObject({ ok: false, reason: 'non_public_address' });
      expect(verdict.ok ? '' : verdict.detail, url).toContain(`(${range})`);
    }
  });

  it('refuses localhost-style local names and single-label names', () => {
    for (const url of ['http://localhost/', 'http://LOCALHOST:3000/', 'http://api.localhost/', 'http://printer.local/', 'http://metadata.google.internal/', 'http://intranet/']) {
      expect(refusal(url), url).toBe('local_name');
    }
  });

  it('refuses control characters, empty labels, labels over 63 characters and URLs over 2048 characters', () => {
    expect(refusal('https://example.com/a\nb')).toBe('control_character');
    expect(refusal('https://example.com/a\tb')).toBe('control_character');
    expect(refusal('https://exa\u0000mple.com/')).toBe('control_character');
    expect(refusal('https://example.com/\u007f')).toBe('control_character');
    expect(refusal('https://example.com/\u0085')).toBe('control_character');
    expect(refusal('https://a..example.com/')).toBe('empty_label');
    expect(refusal('https://.example.com/')).toBe('empty_label');
    expect(refusal('https://example.com./')).toBe('empty_label');
    expect(refusal(`https://${'a'.repeat(64)}.example.com/`)).toBe('long_label');
    expect(refusal(`https://${'a'.repeat(63)}.example.com/`)).toBe('accepted');
    const base = 'https://example.com/';
    expect(refusal(base + 'a'.repeat(2048 - base.length))).toBe('accepted');
    expect(refusal(base + 'a'.repeat(2049 - base.length))).toBe('too_long');
    expect(refusal('not a url')).toBe('unparseable');
    expect(refusal('')).toBe('unparseable');
    expect(refusal('http://999.1.1.1/')).toBe('unparseable');
  });

  it('refuses ports other than WEBHOOK_PORTS (default 80 and 443; either scheme may use either); allowlisted hosts are exempt', () => {
    for (const url of ['http://example.org:8080/a', 'https://example.org:8443/', 'http://8.8.8.8:25/', 'http://[2606:4700:4700::1111]:6379/']) {
      const verdict = checkWebhookUrl(url, []);
      expect(verdict, url).toMatchObject({ ok: false, reason: 'port' });
    }
    expect(checkWebhookUrl('http://example.org:8080/a', [])).toMatchObject({ detail: 'port 8080' });
    expect(refusal('http://example.org/a')).toBe('accepted');
    expect(refusal('https://example.org/a')).toBe('accepted');
    expect(refusal('http://example.org:443/a')).toBe('accepted');
    const ports = { ports: [443, 8443] };
    expect(checkWebhookUrl('https://example.org:8443/', [], ports).ok).toBe(true);
    expect(checkWebhookUrl('https://example.org/', [], ports).ok).toBe(true);
    expect(checkWebhookUrl('http://example.org/', [], ports)).toMatchObject({ ok: false, reason: 'port', detail: 'port 80' });
    expect(checkWebhookUrl('http://hooks.example.org:9000/', ['hooks.example.org:9000']).ok).toBe(true);
    expect(checkWebhookUrl('http://hooks.example.org:9000/', ['hooks.example.org']).ok).toBe(true);
    expect(checkWebhookUrl('http://hooks.example.org:9001/', ['hooks.example.org:9000'])).toMatchObject({ ok: false, reason: 'port' });
  });

  it('WEBHOOK_ALLOWLIST exempts listed hosts (host: any port; host:port: that port only)', () => {
    expect(refusal('http://127.0.0.1:4000/hook', ['127.0.0.1:4000'])).toBe('accepted');
    expect(refusal('http://127.0.0.1:4001/hook', ['127.0.0.1:4000'])).toBe('non_public_address');
    expect(refusal('http://127.0.0.1:4001/hook', ['127.0.0.1'])).toBe('accepted');
    expect(refusal('http://localhost:9000/', ['localhost:9000'])).toBe('accepted');
    expect(refusal('http://receiver/', ['receiver'])).toBe('accepted');
    expect(refusal('http://[::1]:8080/', ['[::1]:8080'])).toBe('accepted');
    expect(refusal('http://127.0.0.1/', ['127.0.0.1:80'])).toBe('accepted');
    // The exemption is for addresses and local names only: the other rules still apply.
    expect(refusal('http://u:p@127.0.0.1:4000/', ['127.0.0.1:4000'])).toBe('credentials');
    expect(refusal('ftp://127.0.0.1:4000/', ['127.0.0.1:4000'])).toBe('scheme');
    const verdict = checkWebhookUrl('http://127.0.0.1:4000/', ['127.0.0.1:4000']);
    expect(verdict.ok && verdict.allowlisted).toBe(true);
    expect(isAllowlisted(new URL('https://example.com/'), ['example.com:443'])).toBe(true);
  });

  it('normalises to the encoded form that is requested and signed', () => {
    const verdict = checkWebhookUrl('HTTPS://Bücher.Example:443/a b/ä?q=ä b&x=1#frag', []);
    expect(verdict.ok && verdict.url.href).toBe('https://xn--bcher-kva.example/a%20b/%C3%A4?q=%C3%A4%20b&x=1');
    const plain = checkWebhookUrl('http://example.com:80/p', []);
    expect(plain.ok && plain.url.href).toBe('http://example.com/p');
  });

  it('classifies addresses with ipaddr.js range names', () => {
    expect(addressRange('::ffff:127.0.0.1')).toBe('loopback');
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    expect(isPublicAddress('2606:4700:4700::1111')).toBe(true);
    expect(isPublicAddress('100.100.100.100')).toBe(false);
    expect(isPublicAddress('not an ip')).toBe(false);
  });
});
