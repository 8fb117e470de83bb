/**
 * Warm pages: the page (and its incognito context) of a finished direct read, kept for the next
 * direct read on the same browser instead of closed. Opening a page starts a renderer process,
 * which is most of what a read costs Chromium; navigating a page that already has one costs a
 * third of it.
 *
 * Nothing of one read reaches the next: no script of any page runs (JavaScript off, and the
 * document never reaches the page: page-capture.ts), the page's HTTP cache is off, and the next read
 * deletes every cookie of the context before it sets its own (page-setup.ts), so a cookie a
 * response or a session left behind never goes out with another customer's read. Headers and user
 * agent are set anew by every read. A read through a proxy never takes or leaves one (its context
 * carries the proxy). A page whose read failed is closed, never kept.
 */
import type { Browser } from 'puppeteer-core';
import type { BrowserSlot } from './browser-slot.js';
import type { SparePage } from './spare-pages.js';
import { CLOSE_TIMEOUT_MS, within } from './within.js';

/** At most `maxPages` idle warm pages per browser slot (one per page slot). */
export class WarmPages {
  private readonly idle = new Map<BrowserSlot, SparePage[]>();
  private closed = false;

  constructor(private readonly maxPages: number) {}

  /** Warm pages kept and not yet taken. */
  get ready(): number {
    let n = 0;
    for (const pages of this.idle.values()) n += pages.length;
    return n;
  }

  /**
   * Keeps `warm` for the next direct read on `slot`; closes it instead when the grid is closing,
   * its browser is gone or the slot already keeps `maxPages`.
   */
  async put(slot: BrowserSlot, warm: SparePage): Promise<void> {
    const pages = this.idle.get(slot) ?? [];
    if (this.closed || !warm.browser.connected || warm.page.isClosed() || pages.length >= this.maxPages) {
      await discard(warm);
      return;
    }
    pages.push(warm);
    this.idle.set(slot, pages);
  }

  /**
   * Takes a warm page of `slot` on `browser`; pages of a browser that since disconnected or
   * restarted, or that closed, are closed instead.
   * @returns undefined when there is none: the read takes a spare or opens its own page.
   */
  take(slot: BrowserSlot, browser: Browser): SparePage | undefined {
    const pages = this.idle.get(slot);
    for (let warm = pages?.pop(); warm; warm = pages?.pop()) {
      if (warm.browser === browser && browser.connected && !warm.page.isClosed()) return warm;
      void discard(warm);
    }
    return undefined;
  }

  /** Closes every warm page; none is kept afterwards. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.idle.values()].flat();
    this.idle.clear();
    await Promise.all(all.map(discard));
  }
}

async function discard(warm: SparePage): Promise<void> {
  await within(warm.page.close(), CLOSE_TIMEOUT_MS);
  await within(warm.context.close(), CLOSE_TIMEOUT_MS);
}
