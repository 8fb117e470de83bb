/**
 * BrowserGrid against a real Chromium (/usr/bin/chromium or CHROME_PATH): the replay server for
 * pages and statuses, and a recording test server of this file's own for headers, cookies,
 * blocked requests, concurrency, timeouts and cancellation.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveMarketplace, type Marketplace } from '../../core/marketplaces.js';
import { startReplayServer, type ReplayServer } from '../../replay/server.js';
import { BrowserGrid, CLOSE_AFTER_DONE_MS, RELEASE_TIMEOUT_MS } from '../../worker/browser/browser-grid.js';
import { LOCAL_CHROMIUM_ARGS } from '../../worker/browser/browser-slot.js';
import { resolveChromePath } from '../../worker/browser/chrome-path.js';
import {
  BrowserGridClosedError,
  BrowserStartError,
  ChromeNotFoundError,
  ReadCancelledError,
  SourceUnavailableError,
} from '../../worker/browser/errors.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../fixtures/replay');
const chromePath = resolveChromePath(process.env.CHROME_PATH);

const mp = (code: string): Marketplace => resolveMarketplace(code)!;

/** A server that records what reaches it; product paths choose the behaviour by ASIN prefix. */
class RecordingServer {
  readonly requests: { path: string; host: string; headers: http.IncomingHttpHeaders }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly server = http.createServer((req, res) => this.handle(req, res));
  private readonly hanging = new Set<http.ServerResponse>();
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  paths(): string[] {
    return this.requests.map((r) => r.path);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const urlPath = req.url ?? '/';
    this.requests.push({ path: urlPath, host: req.headers.host ?? '', headers: req.headers });
    const asin = /\/dp\/(\w+)/.exec(urlPath)?.[1] ?? '';
    const html = (body: string, status = 200): void => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`);
    };
    if (urlPath === '/asset/app.js') {
      // A parser-blocking script: keeps DOMContentLoaded waiting while the preload scanner
      // would already have requested the images, fonts and stylesheets below.
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end('window.appLoaded = true;');
      }, 300);
      return;
    }
    if (asin.startsWith('ECHO')) return html('<span id="productTitle">echo</span>');
    if (asin.startsWith('SETCOOKIE')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': 'session-id=left-behind; Path=/; Max-Age=3600' });
      res.end('<!doctype html><html><body><script>localStorage.setItem("k", "left behind")</script></body></html>');
      return;
    }
    if (asin.startsWith('ASSETS')) {
      const other = this.url.replace('127.0.0.1', 'localhost');
      return html(`
        <style>@font-face { font-family: F; src: url(/asset/font.woff2) format("woff2"); } body { font-family: F; }</style>
        <link rel="stylesheet" href="/asset/style.css">
        <img src="/asset/pic.png" alt=""><img src="/asset/pic2.jpg" alt="">
        <video src="/asset/clip.mp4" autoplay muted></video>
        <script src="${other}/asset/other-origin.js"></script>
        <script src="/asset/app.js"></script>
        <p>text in font F</p>`);
    }
    if (asin.startsWith('AWAY')) {
      res.writeHead(302, { location: `${this.url.replace('127.0.0.1', 'localhost')}/dp/${asin}` });
      res.end();
      return;
    }
    if (asin.startsWith('SLOW')) {
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      setTimeout(() => {
        this.inFlight -= 1;
        html(`<span id="productTitle">${asin}</span>`);
      }, 400);
      return;
    }
    if (asin.startsWith('HANG')) {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    html('not here', 404);
  }
}

/**
 * Every page and context closed and no read holding or awaiting a slot (a read's page closes when
 * its caller calls `done()`, or RELEASE_TIMEOUT_MS after it answered).
 */
async function expectIdle(grid: BrowserGrid): Promise<void> {
  await expect.poll(() => {
    const stats = grid.stats();
    return { openPages: stats.openPages, openContexts: stats.openContexts, activeReads: stats.activeReads, queued: stats.queued };
  }, { timeout: 10_000 }).toEqual({ openPages: 0, openContexts: 0, activeReads: 0, queued: 0 });
}

let replay: ReplayServer;
let recorder: RecordingServer;
/** Local-launch grid reading from the replay server. */
let replayGrid: BrowserGrid;
/** Local-launch grid reading from the recording server; 2 pages, 2 s navigation limit. */
let testGrid: BrowserGrid;

beforeAll(async () => {
  [replay, recorder] = await Promise.all([startReplayServer({ dir: fixtures, port: 0 }), new RecordingServer().start()]);
  [replayGrid, testGrid] = await Promise.all([
    BrowserGrid.start({ wsEndpoints: [], chromePath, maxPages: 4, navTimeoutMs: 10_000, sourceOrigin: replay.url }),
    BrowserGrid.start({ wsEndpoints: [], chromePath, maxPages: 2, navTimeoutMs: 2_000, sourceOrigin: recorder.url }),
  ]);
});

afterEach(async () => {
  await expectIdle(replayGrid);
  await expectIdle(testGrid);
});

afterAll(async () => {
  await Promise.all([replayGrid?.close(), testGrid?.close()]);
  await Promise.all([replay?.close(), recorder?.close()]);
});

describe('BrowserGrid (local Chromium) with the replay server', () => {
  it('returns the exact bytes of a 200 product page, its content type and URL', async () => {
    const page = await replayGrid.read({ marketplace: mp('de'), asin: 'B0000000P1' });
    expect(page.httpStatus).toBe(200);
    expect(Buffer.from(page.bytes).equals(fs.readFileSync(path.join(fixtures, 'de_B0000000P1.html')))).toBe(true);
    expect(page.contentType).toBe('text/html');
    expect(page.requestedUrl).toBe(`${replay.url}/www.amazon.de/dp/B0000000P1`);
    expect(page.loadMs).toBeGreaterThanOrEqual(0);
  });

  it('returns a Shift_JIS page byte for byte (not re-encoded by Chromium)', async () => {
    const page = await replayGrid.read({ marketplace: mp('jp'), asin: 'b0000000j1' });
    expect(page.httpStatus).toBe(200);
    expect(Buffer.from(page.bytes).equals(fs.readFileSync(path.join(fixtures, 'co.jp_B0000000J1.html')))).toBe(true);
  });

  it('returns 404 and 503 pages as SourcePages with their status', async () => {
    const [unknown, notFound, other, captcha] = await Promise.all([
      replayGrid.read({ marketplace: mp('de'), asin: 'B0000000ZZ' }),
      replayGrid.read({ marketplace: mp('com'), asin: 'B0000000F1' }),
      replayGrid.read({ marketplace: mp('com'), asin: 'B0000000O1' }),
      replayGrid.read({ marketplace: mp('br'), asin: 'B0000000C1' }),
    ]);
    expect(unknown.httpStatus).toBe(404);
    expect(Buffer.from(unknown.bytes).toString('utf8')).toContain("Sorry! We couldn't find that page");
    expect(notFound.httpStatus).toBe(404);
    expect(other.httpStatus).toBe(503);
    expect(Buffer.from(other.bytes).equals(fs.readFileSync(path.join(fixtures, 'com_B0000000O1.html')))).toBe(true);
    expect(captcha.httpStatus).toBe(200);
    expect(replay.hits()['/www.amazon.com/dp/B0000000O1']).toBe(1);
  });

  it('relaunches the local Chromium on the next read after it crashed', async () => {
    const pid = replayGrid.stats().browsers[0]?.pid;
    expect(pid).toBeTypeOf('number');
    process.kill(pid!, 'SIGKILL');
    await expect.poll(() => replayGrid.stats().browsers[0]?.connected, { timeout: 5_000 }).toBe(false);
    const page = await replayGrid.read({ marketplace: mp('uk'), asin: 'B0000000U1' });
    expect(page.httpStatus).toBe(200);
    const after = replayGrid.stats().browsers[0];
    expect(after?.connected).toBe(true);
    expect(after?.pid).not.toBe(pid);
  });
});

describe('BrowserGrid (local Chromium) with a recording server', () => {
  it('pins Accept-Language and the currency/language cookies per marketplace', async () => {
    await testGrid.read({ marketplace: mp('de'), asin: 'ECHO000001' });
    await testGrid.read({ marketplace: mp('jp'), asin: 'ECHO000002' });
    const de = recorder.requests.find((r) => r.path === '/www.amazon.de/dp/ECHO000001');
    const jp = recorder.requests.find((r) => r.path === '/www.amazon.co.jp/dp/ECHO000002');
    expect(de?.headers['accept-language']).toBe('de-DE,de;q=0.9');
    expect(de?.headers.cookie).toMatch(/(^|; )i18n-prefs=EUR(;|$)/);
    expect(de?.headers.cookie).toMatch(/(^|; )lc-main=de_DE(;|$)/);
    expect(jp?.headers['accept-language']).toBe('ja-JP,ja;q=0.9');
    expect(jp?.headers.cookie).toMatch(/(^|; )i18n-prefs=JPY(;|$)/);
    expect(de?.headers['user-agent']).not.toMatch(/Headless/);
  });

  it('requests the document only: no script, image, media, font, stylesheet or other origin', async () => {
    const before = recorder.requests.length;
    const page = await testGrid.read({ marketplace: mp('com'), asin: 'ASSETS0001' });
    expect(page.httpStatus).toBe(200);
    expect(Buffer.from(page.bytes).toString('utf8')).toContain('<script src="/asset/app.js">'); // the bytes as sent
    // The browser process asks for /favicon.ico on its own once a page loads: give it time to.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(recorder.paths().slice(before)).toEqual(['/www.amazon.com/dp/ASSETS0001']);
    expect(recorder.requests.filter((r) => r.host.startsWith('localhost'))).toEqual([]);
  });

  it('does not follow a redirect to another origin', async () => {
    const before = recorder.requests.length;
    await expect(testGrid.read({ marketplace: mp('com'), asin: 'AWAY000001' })).rejects.toBeInstanceOf(SourceUnavailableError);
    expect(recorder.paths().slice(before)).toEqual(['/www.amazon.com/dp/AWAY000001']);
    expect(recorder.requests.filter((r) => r.host.startsWith('localhost'))).toEqual([]);
  });

  it('never runs more than maxPages reads at once', async () => {
    recorder.maxInFlight = 0;
    const asins = Array.from({ length: 6 }, (_, i) => `SLOW00000${i}`);
    const reads = asins.map((asin) => testGrid.read({ marketplace: mp('com'), asin }));
    await expect.poll(() => testGrid.stats().queued).toBe(4);
    expect(testGrid.stats().activeReads).toBe(2);
    const pages = await Promise.all(reads);
    expect(pages.map((p) => p.httpStatus)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(recorder.maxInFlight).toBe(2);
  });

  it('holds a lone read\'s page until its caller is done or the next read starts; with reads alongside, closes at once', async () => {
    const open = () => ({ pages: testGrid.stats().openPages, reads: testGrid.stats().activeReads });
    const first = await testGrid.read({ marketplace: mp('com'), asin: 'ECHOREL001' });
    expect(first.done).toBeTypeOf('function');
    // Its caller still parses and stores: the page stays open, holding the slot.
    await new Promise((resolve) => setTimeout(resolve, CLOSE_AFTER_DONE_MS + 100));
    expect(open()).toEqual({ pages: 1, reads: 1 });
    first.done!();
    first.done!(); // idempotent
    await expect.poll(open, { timeout: 3_000 }).toEqual({ pages: 0, reads: 0 });
    // Never released: the next read closes it as it starts, long before RELEASE_TIMEOUT_MS.
    await testGrid.read({ marketplace: mp('com'), asin: 'ECHOREL002' });
    const started = performance.now();
    const third = await testGrid.read({ marketplace: mp('com'), asin: 'ECHOREL003' });
    await expect.poll(open, { timeout: 3_000 }).toEqual({ pages: 1, reads: 1 });
    expect(performance.now() - started).toBeLessThan(RELEASE_TIMEOUT_MS);
    third.done!();
    await expect.poll(open, { timeout: 3_000 }).toEqual({ pages: 0, reads: 0 });
    // With another read under way (a backlog), a read's page closes as soon as its bytes are taken.
    const hold = new AbortController();
    const hanging = testGrid.read({ marketplace: mp('com'), asin: 'HANGREL004', signal: hold.signal }).catch((e: unknown) => e);
    await expect.poll(open, { timeout: 3_000 }).toEqual({ pages: 1, reads: 1 });
    const alongside = await testGrid.read({ marketplace: mp('com'), asin: 'ECHOREL005' });
    expect(alongside.httpStatus).toBe(200);
    await expect.poll(open, { timeout: 1_000 }).toEqual({ pages: 1, reads: 1 }); // the hanging read's page only
    hold.abort();
    expect(await hanging).toBeInstanceOf(ReadCancelledError);
  });

  it('closes a page its caller never releases after RELEASE_TIMEOUT_MS', async () => {
    await testGrid.read({ marketplace: mp('com'), asin: 'ECHOREL005' });
    expect(testGrid.stats().openPages).toBe(1);
    await expect.poll(() => testGrid.stats().openPages, { timeout: RELEASE_TIMEOUT_MS + 3_000, interval: 100 }).toBe(0);
  });

  it('rejects with ReadCancelledError when the signal aborts mid-read, page and context closed', async () => {
    const controller = new AbortController();
    const read = testGrid.read({ marketplace: mp('com'), asin: 'HANG000001', signal: controller.signal });
    await expect.poll(() => recorder.paths().includes('/www.amazon.com/dp/HANG000001')).toBe(true);
    expect(testGrid.stats().openPages).toBe(1);
    const abortedAt = Date.now();
    controller.abort(new Error('caller gave up'));
    await expect(read).rejects.toBeInstanceOf(ReadCancelledError);
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    const stats = testGrid.stats();
    expect(stats.openPages === 0 && stats.openContexts === 0).toBe(true);
  });

  it('rejects at once for an already aborted signal, and leaves the queue when aborted while waiting', async () => {
    await expect(testGrid.read({ marketplace: mp('com'), asin: 'ECHO000003', signal: AbortSignal.abort() })).rejects.toBeInstanceOf(ReadCancelledError);
    const holders = new AbortController();
    const busy = [1, 2].map((i) =>
      testGrid.read({ marketplace: mp('com'), asin: `HANG00000${i + 1}`, signal: holders.signal }).catch((e: unknown) => e),
    );
    const waiting = new AbortController();
    const queued = testGrid.read({ marketplace: mp('com'), asin: 'ECHO000004', signal: waiting.signal });
    await expect.poll(() => testGrid.stats().queued).toBe(1);
    waiting.abort();
    await expect(queued).rejects.toBeInstanceOf(ReadCancelledError);
    expect(testGrid.stats().queued).toBe(0);
    holders.abort();
    for (const outcome of await Promise.all(busy)) expect(outcome).toBeInstanceOf(ReadCancelledError);
    expect(recorder.paths()).not.toContain('/www.amazon.com/dp/ECHO000004');
  });

  it('throws a retryable SourceUnavailableError on navigation timeout', async () => {
    const error = await testGrid.read({ marketplace: mp('com'), asin: 'HANG000009' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceUnavailableError);
    expect((error as SourceUnavailableError).retryable).toBe(true);
    expect((error as SourceUnavailableError).reason).toBe('timeout');
  });
});

describe('BrowserGrid page slots are released on every path', () => {
  /** Slots held or awaited and pages/contexts open, read right after a read settled. */
  const usage = (grid: BrowserGrid) => {
    const { activeReads, queued, openPages, openContexts } = grid.stats();
    return { activeReads, queued, openPages, openContexts };
  };
  const free = { activeReads: 0, queued: 0, openPages: 0, openContexts: 0 };

  it('with one slot, a read that timed out, failed, was cancelled or lost its browser frees it before rejecting; the next read runs at once', async () => {
    await using grid = await BrowserGrid.start({ wsEndpoints: [], chromePath, maxPages: 1, navTimeoutMs: 1_000, sourceOrigin: recorder.url });
    const timedOut = await grid.read({ marketplace: mp('com'), asin: 'HANGSLOT01' }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(SourceUnavailableError);
    expect((timedOut as SourceUnavailableError).reason).toBe('timeout');
    expect(usage(grid)).toEqual(free);

    const failed = await grid.read({ marketplace: mp('com'), asin: 'AWAYSLOT02' }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(SourceUnavailableError);
    expect(usage(grid)).toEqual(free);

    const controller = new AbortController();
    const cancelledRead = grid.read({ marketplace: mp('com'), asin: 'HANGSLOT03', signal: controller.signal }).catch((e: unknown) => e);
    await expect.poll(() => recorder.paths().includes('/www.amazon.com/dp/HANGSLOT03')).toBe(true);
    controller.abort();
    expect(await cancelledRead).toBeInstanceOf(ReadCancelledError);
    expect(usage(grid)).toEqual(free);

    // The browser dies under a running read: the read fails retryably, the slot is free, and the
    // next read relaunches Chromium.
    const crashing = grid.read({ marketplace: mp('com'), asin: 'HANGSLOT04' }).catch((e: unknown) => e);
    await expect.poll(() => recorder.paths().includes('/www.amazon.com/dp/HANGSLOT04')).toBe(true);
    process.kill(grid.stats().browsers[0]!.pid!, 'SIGKILL');
    const crashed = await crashing;
    expect(crashed).toBeInstanceOf(SourceUnavailableError);
    expect((crashed as SourceUnavailableError).retryable).toBe(true);
    expect(usage(grid)).toEqual(free);

    // A leaked slot would leave this read queued until the test times out.
    const started = performance.now();
    const page = await grid.read({ marketplace: mp('com'), asin: 'ECHOSLOT05' });
    expect(page.httpStatus).toBe(200);
    expect(performance.now() - started).toBeLessThan(5_000);
    page.done!();
    await expectIdle(grid);
  });

  it('reads queued behind failing ones get the slot in turn, and the last one succeeds', async () => {
    await using grid = await BrowserGrid.start({ wsEndpoints: [], chromePath, maxPages: 1, navTimeoutMs: 1_000, sourceOrigin: recorder.url });
    const reads = [
      grid.read({ marketplace: mp('com'), asin: 'HANGSLOT06' }).catch((e: unknown) => e),
      grid.read({ marketplace: mp('com'), asin: 'HANGSLOT07' }).catch((e: unknown) => e),
      grid.read({ marketplace: mp('com'), asin: 'ECHOSLOT08' }),
    ];
    expect(await reads[0]).toBeInstanceOf(SourceUnavailableError);
    expect(await reads[1]).toBeInstanceOf(SourceUnavailableError);
    const page = (await reads[2]) as Awaited<ReturnType<BrowserGrid['read']>>;
    expect(page.httpStatus).toBe(200);
    page.done!();
    await expectIdle(grid);
  });
});

describe('BrowserGrid via BROWSER_WS_ENDPOINTS', () => {
  let external: Browser;
  let profile: string;

  beforeAll(async () => {
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'grid-test-chromium-'));
    external = await puppeteer.launch({
      executablePath: chromePath,
      headless: true,
      args: [...LOCAL_CHROMIUM_ARGS, `--user-data-dir=${profile}`, '--remote-debugging-port=0'],
    });
  });

  afterAll(async () => {
    await external?.close();
    fs.rmSync(profile, { recursive: true, force: true });
  });

  /** Incognito contexts the external browser has, whoever opened them (puppeteer lists only its own). */
  async function incognitoContexts(): Promise<number> {
    const session = await external.target().createCDPSession();
    try {
      return (await session.send('Target.getBrowserContexts')).browserContextIds.length;
    } finally {
      await session.detach();
    }
  }

  it('opens the next read\'s context and page ahead of time; a read on that spare keeps nothing of the one before', async () => {
    const grid = await BrowserGrid.start({ wsEndpoints: [external.wsEndpoint()], maxPages: 2, navTimeoutMs: 10_000, sourceOrigin: recorder.url });
    try {
      await expect.poll(() => grid.stats().spares, { timeout: 5_000 }).toBe(1);
      expect(await incognitoContexts()).toBe(1); // the spare
      const created: string[] = [];
      const onCreated = (target: { url(): string }) => created.push(target.url());
      external.on('targetcreated', onCreated);
      const first = await grid.read({ marketplace: mp('com'), asin: 'SETCOOKIE1' });
      external.off('targetcreated', onCreated);
      expect(first.httpStatus).toBe(200);
      expect(created).toEqual([]); // the read ran on the spare: no page was opened for it
      await expectIdle(grid);
      await expect.poll(() => grid.stats().spares, { timeout: 5_000 }).toBe(1);
      await grid.read({ marketplace: mp('com'), asin: 'ECHO000009' });
      const echo = recorder.requests.find((r) => r.path === '/www.amazon.com/dp/ECHO000009');
      expect(echo?.headers.cookie).toMatch(/(^|; )i18n-prefs=USD(;|$)/);
      expect(echo?.headers.cookie).not.toMatch(/session-id/);
      await expectIdle(grid);
    } finally {
      await grid.close();
    }
    expect(grid.stats().spares).toBe(0);
    expect(await incognitoContexts()).toBe(0); // the spare closed with the grid
  });

  it('reads through a remote browser and only disconnects from it on close', async () => {
    const grid = await BrowserGrid.start({ wsEndpoints: [external.wsEndpoint()], maxPages: 2, navTimeoutMs: 10_000, sourceOrigin: replay.url });
    const page = await grid.read({ marketplace: mp('com'), asin: 'B0000000D1' });
    expect(page.httpStatus).toBe(200);
    expect(Buffer.from(page.bytes).equals(fs.readFileSync(path.join(fixtures, 'com_B0000000D1.html')))).toBe(true);
    await expectIdle(grid);
    expect(grid.stats().browsers).toEqual([{ label: external.wsEndpoint(), connected: true, activeReads: 0 }]);
    await grid[Symbol.asyncDispose]();
    await grid.close(); // idempotent
    expect(external.connected).toBe(true);
    expect(await incognitoContexts()).toBe(0); // no incognito context left behind
    await expect(grid.read({ marketplace: mp('com'), asin: 'B0000000D1' })).rejects.toBeInstanceOf(BrowserGridClosedError);
  });

  it('throws a retryable network SourceUnavailableError when the source refuses connections', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const grid = await BrowserGrid.start({ wsEndpoints: [external.wsEndpoint()], maxPages: 1, navTimeoutMs: 5_000, sourceOrigin: origin });
    try {
      const error = await grid.read({ marketplace: mp('com'), asin: 'B0000000D1' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SourceUnavailableError);
      expect((error as SourceUnavailableError).reason).toBe('network');
      expect((error as Error).message).toMatch(/ERR_CONNECTION_REFUSED/);
      await expectIdle(grid);
    } finally {
      await grid.close();
    }
  });

  it('rejects running reads with BrowserGridClosedError when the grid closes', async () => {
    const grid = await BrowserGrid.start({ wsEndpoints: [external.wsEndpoint()], maxPages: 1, navTimeoutMs: 10_000, sourceOrigin: recorder.url });
    const running = grid.read({ marketplace: mp('com'), asin: 'HANG000010' }).catch((e: unknown) => e);
    const queued = grid.read({ marketplace: mp('com'), asin: 'HANG000011' }).catch((e: unknown) => e);
    await expect.poll(() => recorder.paths().includes('/www.amazon.com/dp/HANG000010')).toBe(true);
    await grid.close();
    expect(await running).toBeInstanceOf(BrowserGridClosedError);
    expect(await queued).toBeInstanceOf(BrowserGridClosedError);
    await expectIdle(grid);
    expect((await external.browserContexts()).length).toBe(1);
  });

  it('spreads reads over the endpoints, at most maxPages each, and fails over none to a dead one', async () => {
    const dead = 'ws://127.0.0.1:9/devtools/browser/none';
    const grid = await BrowserGrid.start({
      wsEndpoints: [external.wsEndpoint(), external.wsEndpoint(), dead],
      maxPages: 1,
      navTimeoutMs: 10_000,
      sourceOrigin: recorder.url,
    });
    try {
      expect(grid.stats().browsers.map((b) => b.connected)).toEqual([true, true, false]);
      const holders = new AbortController();
      const held = ['HANG000021', 'HANG000022'].map((asin) =>
        grid.read({ marketplace: mp('com'), asin, signal: holders.signal }).catch((e: unknown) => e),
      );
      await expect.poll(() => grid.stats().browsers.map((b) => b.activeReads)).toEqual([1, 1, 0]);
      // The only browser with room left is the dead one: the read fails, retryably.
      const third = await grid.read({ marketplace: mp('com'), asin: 'ECHO000020' }).catch((e: unknown) => e);
      expect(third).toBeInstanceOf(SourceUnavailableError);
      expect((third as SourceUnavailableError).reason).toBe('browser');
      holders.abort();
      for (const outcome of await Promise.all(held)) expect(outcome).toBeInstanceOf(ReadCancelledError);
      await expectIdle(grid);
    } finally {
      await grid.close();
    }
  });

  it('fails to start with BrowserStartError when no endpoint answers', async () => {
    await expect(BrowserGrid.start({ wsEndpoints: ['ws://127.0.0.1:9/devtools/browser/none'], maxPages: 1, navTimeoutMs: 1_000 })).rejects.toBeInstanceOf(
      BrowserStartError,
    );
  });
});

describe('BrowserGrid start-up errors', () => {
  it('names what it tried when no Chromium exists', async () => {
    const error = await BrowserGrid.start({ wsEndpoints: [], chromePath: '/nonexistent/chromium', maxPages: 1, navTimeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChromeNotFoundError);
    expect((error as Error).message).toContain('/nonexistent/chromium');
  });
});
