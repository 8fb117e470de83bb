/**
 * BrowserGrid via BROWSER_WS_ENDPOINTS: remote browsers (a Chromium this file launches with a
 * remote-debugging port) reached over CDP, against the replay server and the recording test
 * server: spare pages, disconnecting (never closing) on close, failures, spreading reads over
 * endpoints and failing over none to a dead one.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../replay/server.js';
import { BrowserGrid } from '../../worker/browser/browser-grid.js';
import { LOCAL_CHROMIUM_ARGS } from '../../worker/browser/browser-slot.js';
import { BrowserGridClosedError, BrowserStartError, ReadCancelledError, SourceUnavailableError } from '../../worker/browser/errors.js';
import { chromePath, expectIdle, fixtures, mp, RecordingServer } from '../support/browser-grid.js';

let replay: ReplayServer;
let recorder: RecordingServer;

beforeAll(async () => {
  [replay, recorder] = await Promise.all([startReplayServer({ dir: fixtures, port: 0 }), new RecordingServer().start()]);
});

afterAll(async () => {
  await Promise.all([replay?.close(), recorder?.close()]);
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
