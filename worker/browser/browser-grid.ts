/**
 * The browser grid: the entry point for reading product pages through headless Chromium (callers
 * also use errors.ts and chrome-path.ts). It releases every slot, page and context it opens, on
 * every path. The parts, in a read's order:
 * - browser-pool.ts: the browsers and the page slots on them (`SlotLease`), failover;
 *   browser-slot.ts: one browser, (re)connected or (re)launched; semaphore.ts: the slot queue.
 * - read-session.ts: one read on a leased slot (deadline, abort, grid close, error classes from
 *   read-failure.ts); read-resources.ts: the context and page it opened, closed once.
 * - page-setup.ts: the context (an earlier read's page from warm-pages.ts, else a spare from
 *   spare-pages.ts when ready), cookies, headers, user agent, JavaScript and cache off;
 *   page-capture.ts: the navigation and the document's raw bytes.
 * - held-pages.ts: a finished read's page kept open until its caller is done with the bytes.
 * - source-page.ts: the request and answer shapes; errors.ts: what a read throws.
 */
import { pino, type Logger } from 'pino';
import type { Config } from '../../core/config.js';
import type { Marketplace } from '../../core/marketplaces.js';
import { BrowserPool } from './browser-pool.js';
import type { BrowserSource } from './browser-slot.js';
import { resolveChromePath } from './chrome-path.js';
import { BrowserGridClosedError, BrowserStartError, ReadCancelledError } from './errors.js';
import { HeldPages } from './held-pages.js';
import type { OpenPageCounts } from './read-resources.js';
import { ReadSession, readTimeLimitMs, type ReadSessionDeps } from './read-session.js';
import type { ReadRequest, SourcePage } from './source-page.js';
import { SparePages } from './spare-pages.js';
import { WarmPages } from './warm-pages.js';
import { CLOSE_TIMEOUT_MS, within } from './within.js';

export { CLOSE_AFTER_DONE_MS, RELEASE_TIMEOUT_MS } from './held-pages.js';
export type { ReadRequest, SourcePage } from './source-page.js';

/** Options of {@link BrowserGrid.start}. */
export interface BrowserGridOptions {
  /** CDP endpoints of a browser grid (`ws://…` or `http://host:port`); empty → one local Chromium. */
  wsEndpoints: readonly string[];
  /** Chromium binary for the local browser; unset → `/usr/bin/chromium`, `chromium`, `google-chrome`. */
  chromePath?: string;
  /** Nice value (0–19) of the local Chromium's processes: reads yield the CPU to the rest. @default 0 */
  chromiumNice?: number;
  /** Concurrent pages per browser (the grid allows `maxPages × browsers`). */
  maxPages: number;
  /** Navigation time limit of one read, ms. */
  navTimeoutMs: number;
  /** Stand-in origin (`RETAIL_SOURCE_ORIGIN`): pages are read at `<origin>/<domain>/dp/<ASIN>`. */
  sourceOrigin?: string;
  /** Where browser starts, failures and reads are logged; unset → nothing is logged. */
  logger?: Logger;
}

/** Counters for monitoring and tests. */
export interface BrowserGridStats {
  /** Pages opened for reads and not yet closed (spares not counted). */
  openPages: number;
  /** Incognito contexts opened for reads and not yet closed (spares not counted). */
  openContexts: number;
  /** Spare contexts with a blank page, opened ahead of the next read (at most one per browser). */
  spares: number;
  /** Pages of finished direct reads kept for the next ones (at most `maxPages` per browser; not counted in `openPages`). */
  warmPages: number;
  /** Reads holding a page slot. */
  activeReads: number;
  /** Reads waiting for a page slot. */
  queued: number;
  /** Per browser: endpoint or `local`, whether connected, reads on it, pid of a local browser. */
  browsers: { label: string; connected: boolean; activeReads: number; pid?: number }[];
}

/** Idle time after which spare pages are opened, ms. */
const SPARE_AFTER_IDLE_MS = 250;
const ASIN_PATTERN = /^[A-Za-z0-9]{10}$/;

/**
 * Reads product pages through headless Chromium: remote browsers over CDP
 * (`BROWSER_WS_ENDPOINTS`) or one local Chromium. Each read runs in an incognito context of its
 * own at a time (a direct read's page and context are kept for a later read, with every cookie
 * deleted in between: warm-pages.ts) with the marketplace's language and currency pinned
 * (page-setup.ts); every request but the document
 * is blocked (page-capture.ts), and in replay mode every origin but `sourceOrigin`. A browser that
 * disconnects or crashes is reconnected/relaunched on the next read.
 */
export class BrowserGrid implements AsyncDisposable {
  private readonly logger: Logger;
  private readonly sourceOrigin: string | undefined;
  private readonly counts: OpenPageCounts = { pages: 0, contexts: 0 };
  private readonly interrupts = new Set<(error: Error) => void>();
  /** Every read from its call until its slot is released; each settles, never rejects. */
  private readonly reads = new Set<Promise<void>>();
  private readonly held: HeldPages;
  private readonly spares: SparePages;
  private readonly warm: WarmPages;
  private readonly session: ReadSessionDeps;
  private closing: Promise<void> | undefined;
  private spareTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly pool: BrowserPool,
    options: BrowserGridOptions & { logger: Logger },
  ) {
    this.logger = options.logger;
    this.spares = new SparePages(this.logger);
    this.warm = new WarmPages(options.maxPages);
    this.sourceOrigin = options.sourceOrigin ? new URL(options.sourceOrigin).origin : undefined;
    this.held = new HeldPages(() => ({ activeReads: pool.activeReads, queued: pool.queued, closing: this.closing !== undefined }));
    this.session = {
      pool,
      spares: this.spares,
      warm: this.warm,
      counts: this.counts,
      interrupts: this.interrupts,
      navTimeoutMs: options.navTimeoutMs,
      ...(this.sourceOrigin !== undefined && { sourceOrigin: this.sourceOrigin }),
      logger: this.logger,
    };
  }

  /**
   * Connects to every endpoint (or launches the local Chromium). Endpoints that fail now are
   * retried on later reads; at least one browser must come up.
   * @throws RangeError when `maxPages` is not a positive integer or `navTimeoutMs` not positive.
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
        : [{ kind: 'launch', chromePath: resolveChromePath(options.chromePath), nice: options.chromiumNice ?? 0 }];
    const pool = new BrowserPool(sources, { maxPages: options.maxPages, protocolTimeoutMs: readTimeLimitMs(options.navTimeoutMs), logger });
    const grid = new BrowserGrid(pool, { ...options, logger });
    const failures = await pool.connectAll();
    for (const { slot, reason } of failures) logger.warn({ err: reason, browser: slot.label }, 'browser unavailable at start');
    if (failures.length === pool.slots.length) {
      await grid.close();
      const detail = failures.map(({ slot, reason }) => `${slot.label}: ${reason instanceof Error ? reason.message : String(reason)}`);
      throw new BrowserStartError(`no browser available: ${detail.join('; ')}`, { cause: failures[0]?.reason });
    }
    grid.openSparesWhenIdle();
    return grid;
  }

  /** {@link BrowserGrid.start} with BROWSER_WS_ENDPOINTS, CHROME_PATH, READ_NICE, BROWSER_MAX_PAGES, BROWSER_NAV_TIMEOUT, RETAIL_SOURCE_ORIGIN. */
  static fromConfig(config: Config, logger?: Logger): Promise<BrowserGrid> {
    return BrowserGrid.start({
      wsEndpoints: config.BROWSER_WS_ENDPOINTS,
      ...(config.CHROME_PATH !== undefined && { chromePath: config.CHROME_PATH }),
      chromiumNice: config.READ_NICE,
      maxPages: config.BROWSER_MAX_PAGES,
      navTimeoutMs: config.BROWSER_NAV_TIMEOUT,
      ...(config.RETAIL_SOURCE_ORIGIN !== undefined && { sourceOrigin: config.RETAIL_SOURCE_ORIGIN }),
      ...(logger !== undefined && { logger }),
    });
  }

  /**
   * The URL a search read navigates to: `/s?k=<keyword, URL-encoded with %20 for spaces>`, plus
   * `&page=<n>` when n > 1 (operations-contract.md "search reads with RETAIL_SOURCE_ORIGIN set").
   */
  searchUrl(marketplace: Marketplace, keyword: string, page: number): string {
    const path = `/s?k=${encodeURIComponent(keyword)}${page > 1 ? `&page=${page}` : ''}`;
    return this.sourceOrigin ? `${this.sourceOrigin}/${marketplace.domain}${path}` : `https://${marketplace.domain}${path}`;
  }

  /** The URL a read navigates to: the product page of `asin`, or the search page of `request.search`. */
  private urlOf(request: ReadRequest): string {
    return request.search ? this.searchUrl(request.marketplace, request.search.keyword, request.search.page) : this.productUrl(request.marketplace, request.asin);
  }

  /** The URL a read of `asin` on `marketplace` navigates to. */
  productUrl(marketplace: Marketplace, asin: string): string {
    const path = `/dp/${asin.toUpperCase()}`;
    return this.sourceOrigin ? `${this.sourceOrigin}/${marketplace.domain}${path}` : `https://${marketplace.domain}${path}`;
  }

  /**
   * Reads the product page and returns its main document unparsed, whatever its status.
   * Waits for a page slot first (at most `maxPages × browsers` reads run at once).
   * @throws TypeError when `asin` is not 10 letters or digits.
   * @throws SourceUnavailableError (retryable) on navigation timeout, network failure, or a browser
   *   that is unreachable, crashed or disconnected.
   * @throws ReadCancelledError when `signal` aborts (queued or running).
   * @throws BrowserGridClosedError when the grid is closed.
   *
   * A failed read rejects only once its page and context are closed and its slot is free again.
   * A successful read answers as soon as the document's bytes are taken; its page and context
   * close then when other reads are under way, else when the caller calls `page.done()` (see
   * {@link SourcePage.done}), while the read still holds its page slot (so open pages never exceed
   * the bound, and `close` waits for them).
   */
  async read(request: ReadRequest): Promise<SourcePage> {
    if (this.closing) throw new BrowserGridClosedError('browser grid is closed');
    if (!request.search && !ASIN_PATTERN.test(request.asin)) throw new TypeError(`not an ASIN: "${request.asin}"`);
    // Pages held open for their callers close now, at the latest: this read may need the slot,
    // and their teardown should not fall on its parse later.
    this.held.releaseAll();
    return new Promise<SourcePage>((answer, fail) => {
      const life = this.readWhileLeased(request, answer, fail);
      this.reads.add(life);
      void life.finally(() => this.reads.delete(life));
    });
  }

  /**
   * A read's whole life: waits for a slot, reads, answers, holds the page for its caller, then
   * closes the page and context (the session) and frees the slot (the lease), in that order, on
   * every path; a failure is reported only after both. Never rejects.
   */
  private async readWhileLeased(request: ReadRequest, answer: (page: SourcePage) => void, fail: (error: unknown) => void): Promise<void> {
    const url = this.urlOf(request);
    const cancelled = (): ReadCancelledError => new ReadCancelledError(`read of ${url} cancelled`, { cause: request.signal?.reason });
    try {
      using lease = await this.pool.lease(request.signal, cancelled);
      await using session = new ReadSession(this.session, lease, request, url, cancelled);
      const { released } = await this.readAndAnswer(session, answer);
      await released;
    } catch (error) {
      fail(error);
    } finally {
      this.openSparesWhenIdle();
    }
  }

  /**
   * Reads, hands the page to the caller and returns when the page may close (`released`, wrapped so
   * the await does not wait for it). The page is referenced from this frame only, which ends here:
   * while the read holds its slot, only the caller keeps the page's bytes alive.
   */
  private async readAndAnswer(session: ReadSession, answer: (page: SourcePage) => void): Promise<{ released: Promise<void> }> {
    const page = await session.read();
    const released = this.held.hold(page);
    answer(page);
    return { released };
  }

  /**
   * Once no read has held or awaited a slot for {@link SPARE_AFTER_IDLE_MS}, opens a spare context
   * and page on every connected browser lacking one (spare-pages.ts), so that the next read does
   * not wait for a renderer to start. Only idle time is used: opening a page costs a renderer's
   * start-up CPU, which would otherwise compete with reads and their parsing.
   */
  private openSparesWhenIdle(): void {
    if (this.closing || this.pool.busy) return;
    clearTimeout(this.spareTimer);
    this.spareTimer = setTimeout(() => {
      if (this.closing || this.pool.busy) return;
      for (const slot of this.pool.slots) this.spares.replenish(slot);
    }, SPARE_AFTER_IDLE_MS);
    this.spareTimer.unref();
  }

  /** Current counters. */
  stats(): BrowserGridStats {
    return {
      openPages: this.counts.pages,
      openContexts: this.counts.contexts,
      spares: this.spares.ready,
      warmPages: this.warm.ready,
      activeReads: this.pool.activeReads,
      queued: this.pool.queued,
      browsers: this.pool.slots.map((slot) => ({
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
      this.pool.rejectWaiters(error);
      this.held.releaseAll();
      for (const interrupt of this.interrupts) interrupt(error);
      clearTimeout(this.spareTimer);
      const sparesClosed = this.spares.close(); // first, so that no spare is opened afterwards
      await within(Promise.allSettled([...this.reads]), CLOSE_TIMEOUT_MS * 2);
      await within(sparesClosed, CLOSE_TIMEOUT_MS * 2);
      // After the reads: a read that ends now keeps nothing (put() closes its page on a closed WarmPages).
      await within(this.warm.close(), CLOSE_TIMEOUT_MS * 2);
      await this.pool.close();
    })();
    return this.closing;
  }

  /** Same as {@link BrowserGrid.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
