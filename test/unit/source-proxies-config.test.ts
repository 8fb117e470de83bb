/**
 * SOURCE_PROXIES and its companions (core/proxy-list.ts, core/config.ts): entries, files, labels,
 * per-marketplace lists, and credentials that no message, JSON or inspection shows.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, sourceProxiesFor } from '../../core/config.js';
import { MARKETPLACE_CODES } from '../../core/marketplaces.js';
import { parseProxyList, ProxyListError } from '../../core/proxy-list.js';

const SECRET = 'hunter2-s3cret';

describe('SOURCE_PROXIES', () => {
  it('defaults: no proxies (reads go out directly), 3 attempts, quarantine above 0.5 for 10 minutes', () => {
    const c = loadConfig({});
    expect(c.SOURCE_PROXIES).toEqual([]);
    for (const code of MARKETPLACE_CODES) expect(sourceProxiesFor(c, code)).toEqual([]);
    expect([c.SOURCE_ATTEMPTS, c.SOURCE_PROXY_MAX_BLOCK_RATE, c.SOURCE_PROXY_COOLDOWN]).toEqual([3, 0.5, 600_000]);
  });

  it('parses http, https, socks4 and socks5 entries into the server Chromium gets, a label without credentials, and decoded credentials', () => {
    const [a, b, c, d] = parseProxyList(`http://user%40mail:p%3Ass@10.0.0.1:8000, https://gate.example.com ,socks5://[::1]:1080,socks4://s:9`);
    expect([a, b, c, d].map((p) => [p!.label, p!.server])).toEqual([
      ['10.0.0.1:8000', 'http://10.0.0.1:8000'],
      ['gate.example.com:443', 'https://gate.example.com:443'],
      ['[::1]:1080', 'socks5://[::1]:1080'],
      ['s:9', 'socks4://s:9'],
    ]);
    expect(a!.revealCredentials()).toEqual({ username: 'user@mail', password: 'p:ss' });
    expect(b!.revealCredentials()).toBeUndefined();
    expect(a!.revealUrl()).toBe('http://user%40mail:p%3Ass@10.0.0.1:8000');
  });

  it('names entries that share a host and port apart (#2, #3) and counts an identical entry once', () => {
    const list = parseProxyList('http://a:1@gw:8000,http://b:2@gw:8000,http://a:1@gw:8000,http://c:3@gw:8000');
    expect(list.map((p) => p.label)).toEqual(['gw:8000', 'gw:8000#2', 'gw:8000#3']);
  });

  it('reads @/path/to/file: one entry per line, blank lines and # comments skipped', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'proxies-')), 'proxies.txt');
    fs.writeFileSync(file, `# residential pool\nhttp://u:${SECRET}@198.51.100.7:3128\n\n  socks5://198.51.100.8:1080  # no credentials\r\n`);
    const c = loadConfig({ SOURCE_PROXIES: `@${file}` });
    expect(c.SOURCE_PROXIES.map((p) => p.label)).toEqual(['198.51.100.7:3128', '198.51.100.8:1080']);
    expect(() => loadConfig({ SOURCE_PROXIES: `@${file}.missing` })).toThrow(/SOURCE_PROXIES: cannot read the proxy list file .*ENOENT/);
  });

  it('SOURCE_PROXIES_<CODE> replaces the list for one marketplace; the others keep SOURCE_PROXIES', () => {
    const c = loadConfig({ SOURCE_PROXIES: 'http://all:1', SOURCE_PROXIES_DE: 'http://de-1:1,http://de-2:1', SOURCE_PROXIES_UK: '' });
    expect(sourceProxiesFor(c, 'de').map((p) => p.label)).toEqual(['de-1:1', 'de-2:1']);
    expect(sourceProxiesFor(c, 'com').map((p) => p.label)).toEqual(['all:1']);
    expect(sourceProxiesFor(c, 'uk').map((p) => p.label)).toEqual(['all:1']); // empty = unset
  });

  it('refuses bad entries by position, never repeating an entry (it may hold credentials)', () => {
    const bad = [
      `ftp://u:${SECRET}@h:21`, `http://u:${SECRET}@`, `socks5://u:${SECRET}@h:1080`, `http://u:${SECRET}@h:1/path`, `not a url ${SECRET}`,
    ];
    for (const entry of bad) {
      let message = '';
      try {
        loadConfig({ SOURCE_PROXIES: `http://ok:1,${entry}` });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        message = String(error);
      }
      expect(message, entry).toMatch(/SOURCE_PROXIES: entry 2/);
      expect(message).not.toContain(SECRET);
    }
    expect(() => parseProxyList('socks5://u:p@h:1')).toThrow(ProxyListError);
    for (const [name, value] of [['SOURCE_ATTEMPTS', '0'], ['SOURCE_PROXY_MAX_BLOCK_RATE', '1.5'], ['SOURCE_PROXY_COOLDOWN', 'soon']]) {
      expect(() => loadConfig({ [name!]: value }), name).toThrow(new RegExp(name!));
    }
  });

  it('a proxy prints as its label: JSON, string, util.inspect and the frozen config never show the credentials', () => {
    const c = loadConfig({ SOURCE_PROXIES: `http://user:${SECRET}@203.0.113.5:8080` });
    const [proxy] = c.SOURCE_PROXIES;
    for (const text of [JSON.stringify(c), JSON.stringify(proxy), String(proxy), inspect(c, { depth: 5 }), inspect(proxy)]) {
      expect(text).not.toContain(SECRET);
    }
    expect(JSON.stringify(proxy)).toBe('"203.0.113.5:8080"');
  });
});
