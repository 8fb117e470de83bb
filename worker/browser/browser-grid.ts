/**
 * The browser grid: owns the browsers that read product pages, bounds concurrent pages, and
 * releases every page and incognito context it opens exactly once, on every path.
 */
import { performance } from 'node:perf_hooks';
import { pino, type Logger } from 'pino';
import { ProtocolError, TimeoutError, type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import type { Config } from '../../core/config.js';
import type { Marketplace } from '../../core/marketplaces.js';
import { BrowserSlot, type BrowserSource } from './browser-slot.js';
import { resolveChromePath } from './chrome-path.js';
import {
  BrowserGridClosedError,
  BrowserGridError,
  BrowserStartError,
  ReadCancelledError,
  SourceUnavailableError,
} from './errors.js';
import { capturePage } from './page-capture.js';
import { Semaphore } from './semaphore.js';
import { SparePages } from './spare-pages.js';
import { within } from './within.js';

/** Options of {@link BrowserGrid.start}. */
export interface BrowserGridOptions {
  /** CDP endpoints of a browser grid (`ws://…` or `http://host:port`); empty → one local Chromium. */
  wsEndpoints: readonly string[];
  /** Chromium binary for the local browser; unset → `/usr/bin/chromium`, `chromium`, `google-chrome`. */
  chromePath?: string;
  /** Concurrent pages per browser (the grid allows `maxPages × browsers`). */
  maxPages: number;
  /** Navigation time limit of one read, ms. */
  navTimeoutMs: number;
  /** Stand-in origin (`RETAIL_SOURCE_ORIGIN`): pages are read at `<origin>/<domain>/dp/<ASIN>`. */
  sourceOrigin?: string;
  logger?: Logger;
}

/** One read: the product page of `asin` on `marketplace`. */
export interface ReadRequest {
  marketplace: Marketplace;
  /** 10 characters, letters and digits; upper-cased in the URL. */
  asin: string;
  /** Aborting rejects the read with {@link ReadCancelledError} after its page and context are closed. */
  signal?: AbortSignal;
}

/** The main document of a product page as the source answered it (not interpreted). */
export interface SourcePage {
  /** HTTP status of the main document (404 and 5xx are returned, not thrown). */
  httpStatus: number;
  /** The body exactly as received (any charset; not re-encoded). */
  bytes: Uint8Array;
  /** The `Content-Type` header, when the response had one. */
  contentType?: string;
  /** The URL navigated to. */
  requestedUrl: string;
  /** Time from acquiring a page slot to having the bytes (context setup + navigation), ms. Queue wait excluded. */
  loadMs: number;
  /**
   * Tells the grid that the caller is done with the page (bytes parsed, observation stored): its
   * page and context close {@link CLOSE_AFTER_DONE_MS} later. A read that was the grid's only one
   * holds them until then, so that Chromium's teardown (a renderer exiting, ≈ 90 ms of CPU) does not
   * compete with the caller's parse and database writes; with other reads under way they close at
   * once, as soon as the bytes are taken. Idempotent; when it is not called, they close when the
   * next read starts, at grid close, or after {@link RELEASE_TIMEOUT_MS}. Absent on pages that do
   * not come from a grid.
   */
  done?: () => void;
}

/** Counters for monitoring and tests. */
export interface BrowserGridStats {
  /** Pages opened for reads and not yet closed (spares not counted). */
  openPages: number;
  /** Incognito contexts opened for reads and not yet closed (spares not counted). */
  openContexts: number;
  /** Spare contexts with a blank page, opened ahead of the next read (at most one per browser). */
  spares: number;
  /** Reads holding a page slot. */
  activeReads: number;
  /** Reads waiting for a page slot. */
  queued: number;
  /** Per browser: endpoint or `local`, whether connected, reads on it, pid of a local browser. */
  browsers: { label: string; connected: boolean; activeReads: number; pid?: number }[];
}

/** Extra time a read may take beyond the navigation limit for context/page setup and teardown, ms. */
const SETUP_ALLOWANCE_MS = 15_000;
/** Longest wait for a page or context to close before it is counted as gone, ms. */
const CLOSE_TIMEOUT_MS = 5_000;
/** How long a browser that failed to connect/launch is avoided while others are usable, ms. */
const AVOID_AFTER_FAILURE_MS = 2_000;
/** Idle time after which spare pages are opened, ms. */
const SPARE_AFTER_IDLE_MS = 250;

/** A read's page and context close at the latest this long after its bytes were taken (ms; `SourcePage.done`). */
export const RELEASE_TIMEOUT_MS = 2_000;

/**
 * After the caller's `done()`, a lone read's page and context close this much later (ms), unless the
 * next read starts first: the caller's last steps (its workflow ending, the API answering a live
 * read, ≈ 40 ms here) then do not share the CPU with Chromium's teardown either.
 */
export const CLOSE_AFTER_DONE_MS = 200;
const ASIN_PATTERN = /^[A-Za-z0-9]{10}$/;

/** Page and context of one read; each is closed once, by whoever gets to it first. */
interface ReadResources {
  context?: BrowserContext;
  page?: Page;
  /** Set when the read is over (finished or interrupted): whatever is acquired later is closed at once. */
  stopped: boolean;
}

/** Maps whatever a read threw to a {@link BrowserGridError}. */
function classify(error: unknown, url: string): BrowserGridError {
  if (error instanceof BrowserGridError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof TimeoutError || /timed? ?out/i.test(message)) {
    return new SourceUnavailableError(`reading ${url} timed out: ${message}`, 'timeout', url, { cause: error });
  }
  if (/net::ERR_/.test(message)) {
    return new SourceUnavailableError(`reading ${url} failed: ${message}`, 'network', url, { cause: error });
  }
  const what = error instanceof ProtocolError ? 'browser protocol error' : 'browser failure';
  return new SourceUnavailableError(`reading ${url} failed (${what}): ${message}`, 'browser', url, { cause: error });
}

/**
 * Reads product pages through headless Chromium: remote browsers over CDP
 * (`BROWSER_WS_ENDPOINTS`) or one local Chromium. Each read gets a fresh incognito context (opened
 * ahead of time as a spare while the grid was idle: `SparePages`) with the marketplace's language
 * and currency pinned (`Accept-Language`, `i18n-prefs`/`lc-main` cookies); every request but the
 * document is blocked (worker/browser/page-capture.ts), and in replay mode every origin but
 * `sourceOrigin`. A browser that disconnects or crashes is reconnected/relaunched on the next read.
 */
export class BrowserGrid implements AsyncDisposable {
  private readonly semaphore: Semaphore;
  private readonly logger: Logger;
  private readonly sourceOrigin: string | undefined;
  private readonly interrupts = new Set<(error: Error) => void>();
  private readonly reads = new Set<Promise<unknown>>();
  /** Finished reads whose page and context wait for the caller's `done()`: calling one closes them. */
  private readonly pendingCloses = new Set<() => void>();
  private nextSlot = 0;
  private openPages = 0;
  private openContexts = 0;
  private readonly spares: SparePages;
  private closing: Promise<void> | undefined;
  private spareTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly slots: readonly BrowserSlot[],
    private readonly options: BrowserGridOptions,
  ) {
    this.semaphore = new Semaphore(options.maxPages * slots.length);
    this.logger = options.logger ?? pino({ enabled: false });
    this.spares = new SparePages(this.logger);
    this.sourceOrigin = options.sourceOrigin ? new URL(options.sourceOrigin).origin : undefined;
  }

  /**
   * Connects to every endpoint (or launches the local Chromium). Endpoints that fail now are
   * retried on later reads; at least one browser must come up.
   * @throws ChromeNotFoundError when launching and no Chromium binary exists.
   * @throws BrowserStartError when no browser could be connected or launched.
   */
  static async start(options: BrowserGridOptions): Promise<BrowserGrid> {
    if (!Number.isInteger(options.maxPages) || options.maxPages < 1) throw new RangeError('maxPages must be a positive integer');
    if (!(options.navTimeoutMs > 0)) throw new RangeError('navTimeoutMs must be positive');
    const logger = options.logger ?? pino({ enabled: false });
    const sources: BrowserSource[] =
      options.wsEndpoints.length > 0
        ? options.wsEndpoints.map((endpoint) => ({ kind: 'connect', endpoint }))
        : [{ kind: 'launch', chromePath: resolveChromePath(options.chromePath) }];
    const slotOptions = { protocolTimeoutMs: options.navTimeoutMs + SETUP_ALLOWANCE_MS, logger };
    const grid = new BrowserGrid(
      sources.map((source) => new BrowserSlot(source, slotOptions)),
      { ...options, logger },
    );
    const results = await Promise.allSettled(grid.slots.map((slot) => slot.acquire()));
    const failures = results.flatMap((r, i) => (r.status === 'rejected' ? [{ slot: grid.slots[i]!, reason: r.reason as unknown }] : []));
    for (const { slot, reason } of failures) {
      slot.avoidUntil = Date.now() + AVOID_AFTER_FAILURE_MS;
      logger.warn({ err: reason, browser: slot.label }, 'browser unavailable at start');
    }
    if (failures.length === grid.slots.length) {
      await grid.close();
      const detail = failures.map(({ slot, reason }) => `${slot.label}: ${reason instanceof Error ? reason.message : String(reason)}`);
      throw new BrowserStartError(`no browser available: ${detail.join('; ')}`, { cause: failures[0]?.reason });
    }
    grid.openSparesWhenIdle();
    return grid;
  }

  /** {@link BrowserGrid.start} with BROWSER_WS_ENDPOINTS, CHROME_PATH, BROWSER_MAX_PAGES, BROWSER_NAV_TIMEOUT, RETAIL_SOURCE_ORIGIN. */
  static fromConfig(config: Config, logger?: Logger): Promise<BrowserGrid> {
    return BrowserGrid.start({
      wsEndpoints: config.BROWSER_WS_ENDPOINTS,
      ...(config.CHROME_PATH !== undefined && { chromePath: config.CHROME_PATH }),
      maxPages: config.BROWSER_MAX_PAGES,
      navTimeoutMs: config.BROWSER_NAV_TIMEOUT,
      ...(config.RETAIL_SOURCE_ORIGIN !== undefined && { sourceOrigin: config.RETAIL_SOURCE_ORIGIN }),
      ...(logger !== undefined && { logger }),
    });
  }

  /** The URL a read of `asin` on `marketplace` navigates to. */
  productUrl(marketplace: Marketplace, asin: string): string {
    const path = `/dp/${asin.toUpperCase()}`;
    return this.sourceOrigin ? `${this.sourceOrigin}/${marketplace.domain}${path}` : `https://${marketplace.domain}${path}`;
  }

  /**
   * Reads the product page and returns its main document unparsed, whatever its status.
   * Waits for a page slot first (at most `maxPages × browsers` reads run at once).
   * @throws SourceUnavailableError (retryable) on navigation timeout, network failure, or a browser
   *   that is unreachable, crashed or disconnected.
   * @throws ReadCancelledError when `signal` aborts (queued or running); page and context are closed first.
   * @throws BrowserGridClosedError when the grid is closed.
   *
   * A successful read answers as soon as the document's bytes are taken; its page and context
   * close then when other reads are under way, else when the caller calls `page.done()` (see
   * {@link SourcePage.done}), while the read still holds its page slot (so open pages never exceed
   * the bound, and `close` waits for them).
   */
  async read(request: ReadRequest): Promise<SourcePage> {
    if (this.closing) throw new BrowserGridClosedError('browser grid is closed');
    if (!ASIN_PATTERN.test(request.asin)) throw new TypeError(`not an ASIN: "${request.asin}"`);
    const url = this.productUrl(request.marketplace, request.asin);
    const { signal } = request;
    const cancelled = (): ReadCancelledError => new ReadCancelledError(`read of ${url} cancelled`, { cause: signal?.reason });
    // Pages held open for their callers close now, at the latest: this read may need the slot,
    // and their teardown should not fall on its parse later.
    this.closePending();
    const release = await this.semaphore.acquire(signal, cancelled);
    const run = this.runRead(request, url, cancelled);
    // The read's whole life, the clean-up after a success included; never rejects.
    const life = run.then((done) => done.cleanup, () => undefined);
    this.reads.add(life);
    void life.finally(() => {
      this.reads.delete(life);
      release();
      this.openSparesWhenIdle();
    });
    return (await run).page;
  }

  /**
   * Once no read has held or awaited a slot for {@link SPARE_AFTER_IDLE_MS}, opens a spare context
   * and page on every connected browser lacking one (worker/browser/spare-pages.ts), so that the
   * next read does not wait for a renderer to start. Only idle time is used: opening a page costs
   * a renderer's start-up CPU, which would otherwise compete with reads and their parsing.
   */
  private openSparesWhenIdle(): void {
    if (this.closing || this.semaphore.active > 0 || this.semaphore.queued > 0) return;
    clearTimeout(this.spareTimer);
    this.spareTimer = setTimeout(() => {
      if (this.closing || this.semaphore.active > 0 || this.semaphore.queued > 0) return;
      for (const slot of this.slots) this.spares.replenish(slot);
    }, SPARE_AFTER_IDLE_MS);
    this.spareTimer.unref();
  }

  /** Current counters. */
  stats(): BrowserGridStats {
    return {
      openPages: this.openPages,
      openContexts: this.openContexts,
      spares: this.spares.ready,
      activeReads: this.semaphore.active,
      queued: this.semaphore.queued,
      browsers: this.slots.map((slot) => ({
        label: slot.label,
        connected: slot.connected,
        activeReads: slot.active,
        ...(slot.pid !== undefined && { pid: slot.pid }),
      })),
    };
  }

  /**
   * Stops the grid: queued and running reads reject with BrowserGridClosedError (their pages and
   * contexts closed), remote browsers are disconnected (not closed), the local one is closed. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const error = new BrowserGridClosedError('browser grid closed');
      this.semaphore.rejectAll(error);
      this.closePending();
      for (const interrupt of this.interrupts) interrupt(error);
      clearTimeout(this.spareTimer);
      const sparesClosed = this.spares.close(); // first, so that no spare is opened afterwards
      await within(Promise.allSettled([...this.reads]), CLOSE_TIMEOUT_MS * 2);
      await within(sparesClosed, CLOSE_TIMEOUT_MS * 2);
      await Promise.allSettled(this.slots.map((slot) => slot.close()));
    })();
    return this.closing;
  }

  /** Starts closing the pages and contexts of every finished read that still waits for its caller. */
  private closePending(): void {
    for (const closeNow of [...this.pendingCloses]) closeNow();
  }

  /** Same as {@link BrowserGrid.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Least busy browser below `maxPages`, avoiding recently failed ones, ties round-robin. With a
   * permit held there always is one (permits = maxPages × browsers); `exclude` (browsers that just
   * failed for this read) can leave none.
   */
  private pickSlot(exclude?: ReadonlySet<BrowserSlot>): BrowserSlot | undefined {
    const now = Date.now();
    const n = this.slots.length;
    const order = Array.from({ length: n }, (_, i) => this.slots[(this.nextSlot + i) % n]!).filter(
      (slot) => !exclude?.has(slot) && slot.active < this.options.maxPages,
    );
    this.nextSlot = (this.nextSlot + 1) % n;
    const leastBusy = (candidates: BrowserSlot[]): BrowserSlot | undefined =>
      candidates.reduce<BrowserSlot | undefined>((best, slot) => (!best || slot.active < best.active ? slot : best), undefined);
    const preferred = order.filter((slot) => slot.avoidUntil <= now);
    return leastBusy(preferred) ?? leastBusy(order);
  }

  /**
   * One read holding a page slot. Resolves with the page and the clean-up under way (closing its
   * page and context; never rejects); rejects only after that clean-up is done.
   */
  private async runRead(request: ReadRequest, url: string, cancelled: () => ReadCancelledError): Promise<{ page: SourcePage; cleanup: Promise<void> }> {
    const { signal } = request;
    if (signal?.aborted) throw cancelled();
    // Which browser the read holds; `acquireBrowser` may move it to another one.
    const lease = { slot: this.pickSlot()! };
    lease.slot.active += 1;
    const started = performance.now();
    const resources: ReadResources = { stopped: false };

    let interrupt!: (error: Error) => void;
    const interrupted = new Promise<never>((_, reject) => {
      interrupt = reject;
    });
    interrupted.catch(() => undefined);
    const onAbort = (): void => interrupt(cancelled());
    signal?.addEventListener('abort', onAbort, { once: true });
    this.interrupts.add(interrupt);
    const deadline = setTimeout(
      () => interrupt(new SourceUnavailableError(`read of ${url} exceeded ${this.options.navTimeoutMs + SETUP_ALLOWANCE_MS} ms`, 'timeout', url)),
      this.options.navTimeoutMs + SETUP_ALLOWANCE_MS,
    );

    const work = this.navigate(lease, request.marketplace, url, resources);
    const cleanup = async (): Promise<void> => {
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
      this.interrupts.delete(interrupt);
      // Closing interrupts a navigation still in flight; then wait for `navigate` to let go.
      resources.stopped = true;
      await this.closeResources(resources);
      await within(work, CLOSE_TIMEOUT_MS);
      lease.slot.active -= 1;
    };
    let document: Awaited<typeof work>;
    try {
      document = await Promise.race([work, interrupted]);
    } catch (error) {
      const classified = classify(error, url);
      this.logger.debug({ url, err: classified, browser: lease.slot.label }, 'page read failed');
      await cleanup();
      throw classified;
    }
    const page: SourcePage = {
      httpStatus: document.status,
      bytes: document.bytes,
      ...(document.contentType !== undefined && { contentType: document.contentType }),
      requestedUrl: url,
      loadMs: Math.round(performance.now() - started),
    };
    this.logger.debug({ url, status: page.httpStatus, bytes: page.bytes.length, loadMs: page.loadMs, browser: lease.slot.label }, 'page read');
    // The caller has its bytes now; the page and context close when it is done with them.
    clearTimeout(deadline);
    let closeNow!: () => void;
    const released = new Promise<void>((resolve) => {
      closeNow = resolve;
    });
    const fallback = setTimeout(closeNow, RELEASE_TIMEOUT_MS);
    fallback.unref();
    this.pendingCloses.add(closeNow);
    page.done = () => {
      if (this.semaphore.active > 1) closeNow();
      else setTimeout(closeNow, CLOSE_AFTER_DONE_MS).unref();
    };
    const closed = released.then(() => {
      clearTimeout(fallback);
      this.pendingCloses.delete(closeNow);
      return cleanup();
    });
    // Held only while this read is the grid's only one: with other reads under way (a backlog),
    // the teardown overlaps them anyway, and closing at once frees the slot soonest.
    if (this.closing || this.semaphore.active > 1 || this.semaphore.queued > 0) closeNow();
    return { page, cleanup: closed };
  }

  /**
   * The leased slot's browser, (re)connecting it; when that fails, the read moves to the next
   * browser not yet tried. Failed browsers are avoided for a while.
   */
  private async acquireBrowser(lease: { slot: BrowserSlot }, url: string, resources: ReadResources): Promise<Browser> {
    const tried = new Set<BrowserSlot>();
    for (;;) {
      try {
        return await lease.slot.acquire();
      } catch (error) {
        lease.slot.avoidUntil = Date.now() + AVOID_AFTER_FAILURE_MS;
        tried.add(lease.slot);
        const next = resources.stopped || error instanceof BrowserGridError ? undefined : this.pickSlot(tried);
        if (!next) {
          if (error instanceof BrowserGridError) throw error;
          const message = error instanceof Error ? error.message : String(error);
          throw new SourceUnavailableError(`browser ${lease.slot.label} unavailable: ${message}`, 'browser', url, { cause: error });
        }
        this.logger.warn({ err: error, browser: lease.slot.label, next: next.label }, 'browser unavailable; trying another');
        lease.slot.active -= 1;
        next.active += 1;
        lease.slot = next;
      }
    }
  }

  private async navigate(lease: { slot: BrowserSlot }, marketplace: Marketplace, url: string, resources: ReadResources) {
    const stopIfOver = (): void => {
      if (resources.stopped) throw new Error('read already over');
    };
    try {
      const browser = await this.acquireBrowser(lease, url, resources);
      stopIfOver();
      const spare = await this.spares.take(lease.slot, browser);
      const context = spare?.context ?? (await browser.createBrowserContext());
      resources.context = context;
      this.openContexts += 1;
      if (spare) {
        resources.page = spare.page;
        this.openPages += 1;
      }
      stopIfOver();
      const host = new URL(url).hostname;
      await context.setCookie(
        { name: 'i18n-prefs', value: marketplace.currency, domain: host, path: '/' },
        { name: 'lc-main', value: marketplace.language, domain: host, path: '/' },
      );
      stopIfOver();
      if (!resources.page) {
        resources.page = await context.newPage();
        this.openPages += 1;
      }
      const page = resources.page;
      stopIfOver();
      await Promise.all([
        page.setExtraHTTPHeaders({ 'Accept-Language': marketplace.acceptLanguage }),
        page.setUserAgent({ userAgent: await lease.slot.headfulUserAgent(browser) }),
      ]);
      stopIfOver();
      const document = await capturePage(page, {
        url,
        timeoutMs: this.options.navTimeoutMs,
        ...(this.sourceOrigin !== undefined && { allowedOrigin: this.sourceOrigin }),
      });
      // On success `runRead` closes page and context after answering; unless the read was already over.
      if (resources.stopped) await this.closeResources(resources);
      return document;
    } catch (error) {
      await this.closeResources(resources);
      throw error;
    }
  }

  /** Closes the read's page, then its context; each once, and counted as gone even if closing fails. */
  private async closeResources(resources: ReadResources): Promise<void> {
    const { page, context } = resources;
    resources.page = undefined;
    resources.context = undefined;
    if (page) {
      await within(page.close(), CLOSE_TIMEOUT_MS);
      this.openPages -= 1;
    }
    if (context) {
      await within(context.close(), CLOSE_TIMEOUT_MS);
      this.openContexts -= 1;
    }
  }
}
