/**
 * The incognito context and page one read runs in. Each is closed exactly once, by whoever gets to
 * it first: the read itself when it fails, or its session's disposal (which may run while the
 * navigation is still opening them, e.g. on a timeout or cancellation).
 */
import type { BrowserContext, Page } from 'puppeteer-core';
import { CLOSE_TIMEOUT_MS, within } from './within.js';

/** Pages and incognito contexts opened for reads and not yet closed (spares not counted). */
export interface OpenPageCounts {
  pages: number;
  contexts: number;
}

/** A read is over (finished or interrupted) while its navigation still runs: stop that navigation. */
export class ReadStoppedError extends Error {
  constructor() {
    super('read already over');
    this.name = 'ReadStoppedError';
  }
}

/** Context and page of one read, counted in the grid's {@link OpenPageCounts} while open. */
export class ReadResources implements AsyncDisposable {
  private context: BrowserContext | undefined;
  private page: Page | undefined;
  private stopped = false;

  constructor(private readonly counts: OpenPageCounts) {}

  /** True once the read is over: whatever is adopted afterwards is closed by the navigation. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** The read's page, once adopted. */
  get currentPage(): Page | undefined {
    return this.page;
  }

  /** @throws ReadStoppedError when the read is over, so that its navigation lets go. */
  throwIfStopped(): void {
    if (this.stopped) throw new ReadStoppedError();
  }

  /** Takes ownership of the read's context (closed by {@link close}). */
  adoptContext(context: BrowserContext): void {
    this.context = context;
    this.counts.contexts += 1;
  }

  /** Takes ownership of the read's page (closed by {@link close}, before its context). */
  adoptPage(page: Page): void {
    this.page = page;
    this.counts.pages += 1;
  }

  /** Marks the read as over; the navigation still running stops at its next step. */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Closes the page, then the context; each once, counted as gone even when closing fails or
   * takes longer than `CLOSE_TIMEOUT_MS`. Never rejects.
   */
  async close(): Promise<void> {
    const { page, context } = this;
    this.page = undefined;
    this.context = undefined;
    if (page) {
      await within(page.close(), CLOSE_TIMEOUT_MS);
      this.counts.pages -= 1;
    }
    if (context) {
      await within(context.close(), CLOSE_TIMEOUT_MS);
      this.counts.contexts -= 1;
    }
  }

  /**
   * Hands the context and page over to the caller (a warm page kept for the next read) instead of
   * closing them: they leave the open counts and {@link close} no longer touches them.
   * @returns undefined when the read has no page (or no context) left.
   */
  keep(): { context: BrowserContext; page: Page } | undefined {
    const { page, context } = this;
    if (!page || !context || page.isClosed()) return undefined;
    this.page = undefined;
    this.context = undefined;
    this.counts.pages -= 1;
    this.counts.contexts -= 1;
    return { context, page };
  }

  /** Stops the read and closes what it opened. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.stop();
    await this.close();
  }
}
