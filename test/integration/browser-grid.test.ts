/**
 * BrowserGrid against a real Chromium (its headless shell, /usr/bin/chromium or CHROME_PATH): reads
 * from the replay server (bytes, statuses, a crashed browser) and from a recording test server
 * (headers, cookies, blocked requests, concurrency, page holding, timeouts and cancellation). Slots released on every
 * path: browser-grid-slots.test.ts; remote browsers (BROWSER_WS_ENDPOINTS): browser-grid-remote.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../replay/server.js';
import { BrowserGrid, CLOSE_AFTER_DONE_MS, RELEASE_TIMEOUT_MS } from '../../worker/browser/browser-grid.js';
import { ReadCancelledError, SourceUnavailableError } from '../../worker/browser/errors.js';
import type { ReadIdentity } from '../../worker/browser/read-identity.js';
import { chromePath, expectIdle, fixtures, largeBody, mp, RecordingServer, rendererPids } from '../support/browser-grid.js';
import { inCi } from '../support/prerequisites.js';
import { childPids, threadNices } from '../support/processes.js';

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

  it('reads four at a time on warm pages without starting a renderer process per read', async () => {
    await using grid = await BrowserGrid.start({ wsEndpoints: [], chromePath, maxPages: 4, navTimeoutMs: 10_000, sourceOrigin: replay.url });
    const pages = [['uk', 'B0000000U1'], ['jp', 'B0000000J1'], ['de', 'B0000000P1'], ['com', 'B0000000D1']] as const;
    const round = () => Promise.all(pages.map(async ([code, asin]) => {
      const page = await grid.read({ marketplace: mp(code), asin });
      expect(page.httpStatus).toBe(200);
      page.done!();
    }));
    await round();
    await expectIdle(grid);
    const browserPid = grid.stats().browsers[0]!.pid!;
    const before = rendererPids(browserPid);
    expect(before.size).toBeGreaterThan(0);
    for (let i = 0; i < 4; i++) {
      await round();
      await expectIdle(grid);
      // A renderer started for a read shows up here; one started and already gone leaves the set smaller.
      expect(rendererPids(browserPid)).toEqual(before);
    }
    expect(grid.stats().warmPages).toBe(4);
  });

  it('runs a local Chromium at the nice value it is given, renderers started for later reads included', async () => {
    await using grid = await BrowserGrid.start({ wsEndpoints: [], chromePath, chromiumNice: 10, maxPages: 2, navTimeoutMs: 10_000, sourceOrigin: replay.url });
    // Cross-site reads in fresh incognito contexts: renderers the browser starts after the launch.
    await Promise.all([['uk', 'B0000000U1'], ['jp', 'B0000000J1']].map(async ([code, asin]) => {
      const page = await grid.read({ marketplace: mp(code as 'uk' | 'jp'), asin: asin! });
      expect(page.httpStatus).toBe(200);
      page.done!();
    }));
    await expectIdle(grid);
    const browserPid = grid.stats().browsers[0]!.pid!;
    const tree = (pid: number): number[] => [pid, ...childPids(pid, /./).flatMap(tree)];
    const processes = tree(browserPid);
    expect(processes).toEqual(expect.arrayContaining([...rendererPids(browserPid)]));
    expect(rendererPids(browserPid).size).toBeGreaterThan(0);
    // Every thread, including those Chromium gives a priority of its own (display-critical ones
    // ask for nice -8 where they may), runs at 10 or lower priority.
    for (const pid of processes) expect(Math.min(...threadNices(pid)), `process ${pid}`).toBeGreaterThanOrEqual(10);
    // Without the option the browser keeps the launcher's priority (0 here; as root Chromium
    // raises some of its threads further).
    expect(Math.min(...threadNices(replayGrid.stats().browsers[0]!.pid!))).toBeLessThanOrEqual(0);
  });

  it('launches Chromium\'s headless shell when no path is given (started with --headless), full Chromium with --headless=new', async (ctx) => {
    const shell = '/usr/lib/chromium/chromium-headless-shell';
    if (!fs.existsSync(shell) || !fs.existsSync('/usr/bin/chromium')) {
      // As root the bootstrap installs both (Debian's chromium-headless-shell and chromium).
      if (inCi) throw new Error(`prerequisite missing under CI=true: ${shell} and /usr/bin/chromium`);
      ctx.skip('Debian\'s chromium-headless-shell or chromium is not installed');
    }
    const commandLine = async (chromePath: string | undefined): Promise<string[]> => {
      await using grid = await BrowserGrid.start({ wsEndpoints: [], ...(chromePath !== undefined && { chromePath }), maxPages: 1, navTimeoutMs: 10_000, sourceOrigin: replay.url });
      const page = await grid.read({ marketplace: mp('de'), asin: 'B0000000P1' });
      expect(Buffer.from(page.bytes).equals(fs.readFileSync(path.join(fixtures, 'de_B0000000P1.html')))).toBe(true);
      page.done!();
      await expectIdle(grid);
      return fs.readFileSync(`/proc/${grid.stats().browsers[0]!.pid!}/cmdline`, 'utf8').split('\0');
    };
    const byDefault = await commandLine(undefined);
    expect(byDefault[0]).toBe(shell);
    expect(byDefault).toContain('--headless');
    expect(byDefault).not.toContain('--headless=new');
    // Full Chromium, named explicitly (CHROME_PATH), runs in its own headless mode.
    const full = await commandLine('/usr/bin/chromium');
    expect(full).toContain('--headless=new');
    expect(full).not.toContain('--headless');
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
  it('keeps a direct read\'s page for the next read, which carries no cookie of the reads before', async () => {
    await using grid = await BrowserGrid.start({ wsEndpoints: [], chromePath, maxPages: 1, navTimeoutMs: 5_000, sourceOrigin: recorder.url });
    const customerA: ReadIdentity = {
      cookies: (url) => [{ name: 'customer', value: 'A', domain: new URL(url).hostname, path: '/' }],
      preparePage: async () => undefined,
    };
    // A session's cookie and a cookie a redirect set both land in the first read's context.
    const first = await grid.read({ marketplace: mp('com'), asin: 'CRUMB00001', identity: customerA });
    first.done!();
    const followed = recorder.requests.find((r) => r.path === '/www.amazon.com/dp/ECHOC00001');
    expect(followed?.headers.cookie).toMatch(/(^|; )crumb=left-behind(;|$)/);
    expect(followed?.headers.cookie).toMatch(/(^|; )customer=A(;|$)/);
    await expectIdle(grid);
    expect(grid.stats().warmPages).toBe(1);

    const second = await grid.read({ marketplace: mp('de'), asin: 'ECHOWARM01' });
    second.done!();
    expect(grid.stats().warmPages).toBe(0); // the second read runs on the first one's page
    const echo = recorder.requests.find((r) => r.path === '/www.amazon.de/dp/ECHOWARM01');
    expect(echo?.headers.cookie).toMatch(/(^|; )i18n-prefs=EUR(;|$)/);
    expect(echo?.headers.cookie).not.toMatch(/crumb|customer/);
    expect(echo?.headers['accept-language']).toBe(mp('de').acceptLanguage);
    await expectIdle(grid);
    expect(grid.stats().warmPages).toBe(1);
  });

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

  it('returns a body of several stream chunks byte for byte, every byte value included', async () => {
    const page = await testGrid.read({ marketplace: mp('com'), asin: 'LARGE00001' });
    expect(page.httpStatus).toBe(200);
    expect(page.bytes.length).toBe(largeBody().length);
    expect(Buffer.from(page.bytes).equals(largeBody())).toBe(true);
    // Its own ArrayBuffer, so the parse pool moves it to its thread instead of copying it.
    expect(page.bytes.byteOffset === 0 && page.bytes.byteLength === page.bytes.buffer.byteLength).toBe(true);
  });

  it('returns an empty body as an empty page, not an error', async () => {
    const page = await testGrid.read({ marketplace: mp('com'), asin: 'EMPTY00001' });
    expect(page.httpStatus).toBe(200);
    expect(page.bytes.length).toBe(0);
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
