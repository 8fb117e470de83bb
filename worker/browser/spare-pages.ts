/**
 * Spare pages: per browser, one incognito context with a blank page opened ahead of the next read
 * (while the grid is idle), so that a read does not wait for Chromium to start a renderer process
 * (`newPage` is the largest part of a read's page load). A spare is never navigated before a read
 * takes it, so it holds no cookies, storage or cache: a read on a spare is
 * as isolated as one on a context opened for it, and is closed after the read like any other.
 */
import type { Logger } from 'pino';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import type { BrowserSlot } from './browser-slot.js';
import { CLOSE_TIMEOUT_MS, within } from './within.js';

/** A blank page in its own incognito context, on `browser`. */
export interface SparePage {
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

async function discard(spare: SparePage): Promise<void> {
  await within(spare.context.close(), CLOSE_TIMEOUT_MS);
}

/** At most one spare per browser slot, ready or being opened. */
export class SparePages {
  private readonly opening = new Map<BrowserSlot, Promise<SparePage | undefined>>();
  private readyCount = 0;
  private closed = false;

  constructor(private readonly logger: Logger) {}

  /** Spares opened and not yet taken. */
  get ready(): number {
    return this.readyCount;
  }

  /**
   * Starts opening a spare on `slot`'s browser when it is connected and has none (ready or being
   * opened). Never launches or reconnects a browser; a failure is logged and leaves no spare.
   */
  replenish(slot: BrowserSlot): void {
    if (this.closed || this.opening.has(slot) || !slot.connected) return;
    const open = async (): Promise<SparePage> => {
      const browser = await slot.acquire();
      const context = await browser.createBrowserContext();
      try {
        return { browser, context, page: await context.newPage() };
      } catch (error) {
        await within(context.close(), CLOSE_TIMEOUT_MS);
        throw error;
      }
    };
    const spare = open().then(
      (opened) => {
        this.readyCount += 1;
        return opened;
      },
      (error: unknown) => {
        this.logger.debug({ err: error, browser: slot.label }, 'could not open a spare page');
        return undefined;
      },
    );
    this.opening.set(slot, spare);
    // A failed opening leaves room for the next one.
    void spare.then((opened) => {
      if (!opened && this.opening.get(slot) === spare) this.opening.delete(slot);
    });
  }

  /**
   * Takes `slot`'s spare (waiting for it while it is being opened) when it is on `browser` and
   * still usable; a spare of a browser that since disconnected or restarted is closed instead.
   * @returns undefined when there is none to take: the read opens its own context and page.
   */
  async take(slot: BrowserSlot, browser: Browser): Promise<SparePage | undefined> {
    const spare = this.opening.get(slot);
    if (!spare) return undefined;
    this.opening.delete(slot);
    const opened = await spare;
    if (!opened) return undefined;
    this.readyCount -= 1;
    if (opened.browser === browser && browser.connected && !opened.page.isClosed()) return opened;
    await discard(opened);
    return undefined;
  }

  /** Closes every spare (waiting for those being opened); none is opened afterwards. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.opening.values()];
    this.opening.clear();
    await Promise.all(all.map(async (spare) => {
      const opened = await spare;
      if (!opened) return;
      this.readyCount -= 1;
      await discard(opened);
    }));
  }
}
