/**
 * Identities of page reads against a real Chromium (worker/identity): what a read sends as a
 * session (fingerprint, the marketplace's language, the session's cookie jar), a blocked read
 * going on with another session, a dead proxy left for a live one and then quarantined, and the
 * deadline that bounds every attempt. The marketplace is a small recording server of this file;
 * proxies are proxy-chain servers on loopback (scripts/forward-proxies.ts).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMarketplace, type Marketplace } from '../../core/marketplaces.js';
import { parseProxyList } from '../../core/proxy-list.js';
import { startForwardProxy, type ForwardProxy } from '../../scripts/forward-proxies.js';
import { BrowserGrid } from '../../worker/browser/browser-grid.js';
import { resolveChromePath } from '../../worker/browser/chrome-path.js';
import { DEADLINE_MARGIN_MS, ReadAttemptsFailedError, readWithIdentities, type PageJudge } from '../../worker/identity/identity-reads.js';
import { MIN_READS_TO_JUDGE } from '../../worker/identity/proxy-health.js';
import { SESSIONS_PER_PROXY, SourceIdentities } from '../../worker/identity/source-identities.js';
import { captureLogs } from '../support/log-capture.js';

const captchaPage = fs.readFileSync(new URL('../fixtures/html/captcha.html', import.meta.url));
const mp = (code: string): Marketplace => resolveMarketplace(code)!;

/**
 * The marketplace: `/dp/SETS…` sets a cookie, `/dp/ONCE…` answers a robot check to its first
 * request and a product after, `/dp/HANG…` never answers, anything else is a product page.
 */
class RecordingMarketplace {
  readonly requests: { path: string; headers: http.IncomingHttpHeaders }[] = [];
  private readonly server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    this.requests.push({ path, headers: req.headers });
    const asin = /\/dp\/(\w+)/.exec(path)?.[1] ?? '';
    if (asin.startsWith('HANG')) return;
    const product = `<!doctype html><html><head><meta charset="utf-8"><title>p</title></head><body><span id="productTitle">${asin}</span></body></html>`;
    if (asin.startsWith('ONCE') && this.requests.filter((r) => r.path === path).length === 1) {
      res.writeHead(200, { 'content-type': 'text/html' }).end(captchaPage);
      return;
    }
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'text/html; charset=utf-8' };
    if (asin.startsWith('SETS')) headers['set-cookie'] = `session-id=${asin}-jar; Path=/; Max-Age=3600`;
    res.writeHead(200, headers).end(product);
  });
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  last(asin: string): http.IncomingHttpHeaders {
    return this.requests.filter((r) => r.path.endsWith(`/dp/${asin}`)).at(-1)!.headers;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let source: RecordingMarketplace;
let grid: BrowserGrid;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  source = await new RecordingMarketplace().start();
  grid = await BrowserGrid.start({ wsEndpoints: [], chromePath: resolveChromePath(process.env.CHROME_PATH), maxPages: 2, navTimeoutMs: 10_000, sourceOrigin: source.url });
});

afterAll(async () => {
  await grid?.close();
  await source?.close();
});

describe('a session, read directly', () => {
  const identities = new SourceIdentities({ proxiesFor: () => [], maxBlockRate: 0.5, cooldownMs: 60_000, logger });
  afterAll(() => identities.close());

  it('sends its fingerprint\'s user agent and the marketplace\'s exact Accept-Language, and keeps its cookies for its next read', async () => {
    const lease = await identities.checkout(mp('de'), { sessions: new Set(), proxies: new Set() });
    expect(lease.proxy).toBe('direct');
    const first = await grid.read({ marketplace: mp('de'), asin: 'SETS000001', identity: lease.identity });
    first.done?.();
    expect(first.setCookies).toEqual(['session-id=SETS000001-jar; Path=/; Max-Age=3600']);
    const headers = source.last('SETS000001');
    expect(headers['accept-language']).toBe('de-DE,de;q=0.9');
    expect(headers['user-agent']).toMatch(/^Mozilla\/5\.0 .*Chrome\/\d+/);
    expect(headers['user-agent']).not.toMatch(/Headless/);
    expect(headers.cookie).toMatch(/i18n-prefs=EUR/);
    expect(headers.cookie).not.toMatch(/session-id/);
    lease.settle('product', 10, first.setCookies, first.requestedUrl);

    // The same session's next read carries the cookie; the marketplace's own cookies still apply.
    const second = await grid.read({ marketplace: mp('de'), asin: 'ECHO000002', identity: lease.identity });
    second.done?.();
    expect(source.last('ECHO000002').cookie).toMatch(/(^|; )session-id=SETS000001-jar(;|$)/);
    expect(source.last('ECHO000002').cookie).toMatch(/lc-main=de_DE/);
    expect(source.last('ECHO000002')['user-agent']).toBe(headers['user-agent']);
  });

  it('a read blocked on one session goes on with another, which gets the page; the blocked one is retired', async () => {
    const logs = captureLogs('info');
    const read = await readWithIdentities({ source: grid, identities, attempts: 3, logger: logs.logger }, { marketplace: mp('com'), asin: 'ONCE000003' });
    read.page.done?.();
    expect(read.parsed.kind).toBe('product');
    expect(read.attempts.map((a) => [a.proxy, a.outcome])).toEqual([['direct', 'blocked'], ['direct', 'product']]);
    expect(read.attempts[0]!.reason).toMatch(/^robot_check/);
    expect(read.attempts[0]!.session).not.toBe(read.attempts[1]!.session);
    expect(logs.lines().filter((l) => l.msg === 'source read attempt').map((l) => l.outcome)).toEqual(['blocked', 'product']);
    for (let i = 0; i < 10; i++) {
      const lease = await identities.checkout(mp('com'), { sessions: new Set(), proxies: new Set() });
      expect(lease.sessionId).not.toBe(read.attempts[0]!.session);
    }
  });

  it('no attempt outlives the deadline: a page that never answers fails as `budget` before it', async () => {
    const deadline = Date.now() + 4_000;
    const error = await readWithIdentities({ source: grid, identities, attempts: 3, logger }, { marketplace: mp('com'), asin: 'HANG000004', deadline }).catch((e: unknown) => e);
    expect(Date.now()).toBeLessThan(deadline);
    expect(Date.now()).toBeGreaterThanOrEqual(deadline - DEADLINE_MARGIN_MS - 100);
    expect(error).toBeInstanceOf(ReadAttemptsFailedError);
    expect((error as ReadAttemptsFailedError).attempts).toEqual([expect.objectContaining({ outcome: 'unavailable', reason: 'budget' })]);
  });
});

describe('proxies', () => {
  let live: ForwardProxy;
  let deadUrl: string;

  beforeAll(async () => {
    live = await startForwardProxy({ credentials: { username: 'shopper', password: 'p@ss:w0rd' } });
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
  });

  afterAll(() => live?.close());

  it('results pages read through one proxy keep it open and keep their sessions: a search read is a read, not a block', async () => {
    const proxy = await startForwardProxy();
    const proxies = parseProxyList(proxy.url);
    const logs = captureLogs('info');
    const identities = new SourceIdentities({ proxiesFor: () => proxies, maxBlockRate: 0.5, cooldownMs: 60_000, logger: logs.logger });
    // Every page this marketplace answers with 200 is the results page asked for (the parse is not what is tested here).
    const resultsPage: PageJudge<number> = async (page) => (page.httpStatus === 200 ? { outcome: 'search', parsed: page.httpStatus, parseMs: 0 } : { outcome: 'blocked', reason: `HTTP ${page.httpStatus}` });
    try {
      const sessions = new Set<string>();
      for (let i = 0; i < 3 * MIN_READS_TO_JUDGE; i++) {
        const read = await readWithIdentities({ source: grid, identities, attempts: 1, logger: logs.logger }, { marketplace: mp('fr'), asin: '', search: { keyword: `chaussures ${i}`, page: 1 } }, resultsPage);
        read.page.done?.();
        expect(read.attempts.map((a) => a.outcome)).toEqual(['search']);
        sessions.add(read.attempts[0]!.session);
      }
      expect(proxy.forwarded).toHaveLength(3 * MIN_READS_TO_JUDGE);
      expect(sessions.size).toBeLessThanOrEqual(SESSIONS_PER_PROXY);
      expect(logs.lines().filter((l) => l.msg === 'proxy quarantined')).toEqual([]);
    } finally {
      await identities.close();
      await proxy.close();
    }
  });

  it('a proxy that refuses connections is a proxy error: the read goes on through the other proxy, and the dead one is quarantined', async () => {
    const proxies = parseProxyList(`${deadUrl},${live.url}`);
    const logs = captureLogs('info');
    const identities = new SourceIdentities({ proxiesFor: () => proxies, maxBlockRate: 0.5, cooldownMs: 60_000, logger: logs.logger });
    try {
      const outcomes: string[][] = [];
      for (let i = 0; i < 12; i++) {
        const read = await readWithIdentities({ source: grid, identities, attempts: 3, logger: logs.logger }, { marketplace: mp('uk'), asin: `ECHO1000${String(i).padStart(2, '0')}` });
        read.page.done?.();
        outcomes.push(read.attempts.map((a) => `${a.proxy === proxies[0]!.label ? 'dead' : 'live'} ${a.outcome}${a.reason ? ` ${a.reason}` : ''}`));
      }
      // Round-robin gives every other read's first attempt to the dead proxy until it has failed MIN_READS_TO_JUDGE times.
      expect(outcomes.slice(0, 2).map((attempts) => attempts.map((a) => a.split(' ')[0]))).toEqual([['dead', 'live'], ['live']]);
      const deadAttempts = outcomes.flat().filter((o) => o.startsWith('dead'));
      expect(deadAttempts).toHaveLength(MIN_READS_TO_JUDGE);
      for (const attempt of deadAttempts) expect(attempt).toBe('dead proxy_error net::ERR_PROXY_CONNECTION_FAILED');
      expect(outcomes.every((attempts) => attempts.at(-1) === 'live product')).toBe(true);
      expect(live.forwarded).toHaveLength(12);
      expect(logs.lines().filter((l) => l.msg === 'proxy quarantined')).toEqual([expect.objectContaining({ proxy: proxies[0]!.label, marketplace: 'uk' })]);
      expect(logs.text()).not.toContain('p@ss:w0rd');
    } finally {
      await identities.close();
    }
  });
});
