/**
 * Pages held for their callers (worker/browser/held-pages.ts): when each is let go, and that a hold
 * still pending does not keep the page's bytes alive once the caller has dropped them.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { HeldPages, type GridLoad } from '../../worker/browser/held-pages.js';
import type { SourcePage } from '../../worker/browser/source-page.js';

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

const lone: GridLoad = { activeReads: 1, queued: 0, closing: false };
const busy: GridLoad = { activeReads: 3, queued: 0, closing: false };

function pageOf(bytes: Uint8Array): SourcePage {
  return { httpStatus: 200, bytes, setCookies: [], requestedUrl: 'https://www.amazon.com/dp/B000000000', loadMs: 1 };
}

const settled = async (promise: Promise<void>): Promise<boolean> => {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('held pages', () => {
  it('lets a page go at once while other reads are under way, and holds a lone read until its caller is done', async () => {
    expect(await settled(new HeldPages(() => busy).hold(pageOf(new Uint8Array(1))))).toBe(true);
    const held = new HeldPages(() => lone);
    const page = pageOf(new Uint8Array(1));
    const released = held.hold(page);
    expect(await settled(released)).toBe(false);
    held.releaseAll();
    expect(await settled(released)).toBe(true);
  });

  it("keeps no reference to the page's bytes while its hold is pending", async () => {
    const held = new HeldPages(() => lone);
    let bytes: WeakRef<Uint8Array> | undefined;
    let released: Promise<void> | undefined;
    (() => {
      const body = new Uint8Array(1 << 20);
      bytes = new WeakRef(body);
      const page = pageOf(body);
      released = held.hold(page);
      // The caller is done: the page closes CLOSE_AFTER_DONE_MS later, on a timer still pending below.
      page.done?.();
    })();
    // A WeakRef's target stays alive until the job that made it ends.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(bytes?.deref()).toBeUndefined();
    expect(await settled(released!)).toBe(false);
    held.releaseAll();
    expect(await settled(released!)).toBe(true);
  });
});
