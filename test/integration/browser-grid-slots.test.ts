/**
 * BrowserGrid page slots against a real Chromium and the recording test server: every way a read
 * ends (timeout, failure, cancellation, a lost browser) frees its slot before it rejects; and the
 * start-up error when no Chromium exists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserGrid } from '../../worker/browser/browser-grid.js';
import { ChromeNotFoundError, ReadCancelledError, SourceUnavailableError } from '../../worker/browser/errors.js';
import { chromePath, expectIdle, mp, RecordingServer } from '../support/browser-grid.js';

let recorder: RecordingServer;

beforeAll(async () => {
  recorder = await new RecordingServer().start();
});

afterAll(async () => {
  await recorder?.close();
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

describe('BrowserGrid start-up errors', () => {
  it('names what it tried when no Chromium exists', async () => {
    const error = await BrowserGrid.start({ wsEndpoints: [], chromePath: '/nonexistent/chromium', maxPages: 1, navTimeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChromeNotFoundError);
    expect((error as Error).message).toContain('/nonexistent/chromium');
  });
});
