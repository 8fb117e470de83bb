/**
 * One read of a product page on a leased slot: finds the browser, prepares the page, captures the
 * document, and turns every way it can end (success, failure, timeout, the caller's abort, the
 * grid closing) into either a {@link SourcePage} or a classified error. Disposing the session
 * closes what the read opened and waits for its navigation to let go, on every path.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Browser } from 'puppeteer-core';
import type { BrowserPool, SlotLease } from './browser-pool.js';
import { SourceUnavailableError, type ReadCancelledError } from './errors.js';
import { capturePage, type CapturedDocument } from './page-capture.js';
import { prepareReadPage } from './page-setup.js';
import { classifyReadFailure } from './read-failure.js';
import { ReadResources, type OpenPageCounts } from './read-resources.js';
import type { ReadRequest, SourcePage } from './source-page.js';
import type { SparePages } from './spare-pages.js';
import type { WarmPages } from './warm-pages.js';
import { CLOSE_TIMEOUT_MS, within } from './within.js';

/** Extra time a read may take beyond the navigation limit for context/page setup and teardown, ms. */
const SETUP_ALLOWANCE_MS = 15_000;

/** The longest a whole read may take (navigation limit plus setup allowance), ms; also each CDP call's limit. */
export function readTimeLimitMs(navTimeoutMs: number): number {
  return navTimeoutMs + SETUP_ALLOWANCE_MS;
}

/** What a session shares with the grid. */
export interface ReadSessionDeps {
  pool: BrowserPool;
  spares: SparePages;
  /** Pages of finished direct reads, kept for the next ones. */
  warm: WarmPages;
  /** The grid's open page and context counters. */
  counts: OpenPageCounts;
  /** Interrupts of the running reads: the grid calls each when it closes. */
  interrupts: Set<(error: Error) => void>;
  /** Navigation time limit, ms. */
  navTimeoutMs: number;
  /** When set, requests to any other origin are blocked (replay mode). */
  sourceOrigin?: string;
  logger: Logger;
}

/** One read holding `lease`; use with `await using` so its page and context always close. */
export class ReadSession implements AsyncDisposable {
  private readonly resources: ReadResources;
  private work: Promise<CapturedDocument> | undefined;
  private deadline: NodeJS.Timeout | undefined;
  /** The browser the read runs on, once found. */
  private browser: Browser | undefined;
  /** True once the document was captured and answered: its page may serve the next read. */
  private succeeded = false;
  private readonly interrupt: (error: Error) => void;
  private readonly interrupted: Promise<never>;
  private readonly onAbort = (): void => this.interrupt(this.cancelled());

  constructor(
    private readonly deps: ReadSessionDeps,
    private readonly lease: SlotLease,
    private readonly request: ReadRequest,
    /** The product URL. */
    private readonly url: string,
    /** Builds the error of a read its caller aborted. */
    private readonly cancelled: () => ReadCancelledError,
  ) {
    this.resources = new ReadResources(deps.counts);
    let interrupt!: (error: Error) => void;
    this.interrupted = new Promise<never>((_, reject) => {
      interrupt = reject;
    });
    this.interrupted.catch(() => undefined);
    this.interrupt = interrupt;
  }

  /**
   * Navigates and returns the main document as a {@link SourcePage} (without `done`).
   * @throws SourceUnavailableError on timeout (navigation or the whole read), network failure, or
   *   an unreachable, crashed or disconnected browser; ReadCancelledError when the caller aborted;
   *   the error the grid interrupted the read with (BrowserGridClosedError).
   */
  async read(): Promise<SourcePage> {
    const { signal } = this.request;
    if (signal?.aborted) throw this.cancelled();
    const started = performance.now();
    signal?.addEventListener('abort', this.onAbort, { once: true });
    this.deps.interrupts.add(this.interrupt);
    const limitMs = readTimeLimitMs(this.deps.navTimeoutMs);
    this.deadline = setTimeout(
      () => this.interrupt(new SourceUnavailableError(`read of ${this.url} exceeded ${limitMs} ms`, 'timeout', this.url)),
      limitMs,
    );
    this.work = this.navigate();
    let document: CapturedDocument;
    try {
      document = await Promise.race([this.work, this.interrupted]);
    } catch (error) {
      const classified = classifyReadFailure(error, this.url);
      this.deps.logger.debug({ url: this.url, err: classified, browser: this.lease.slot.label }, 'page read failed');
      throw classified;
    }
    clearTimeout(this.deadline);
    this.succeeded = true;
    // Settled: nothing to wait for at close, and the session no longer keeps the document's bytes alive.
    this.work = undefined;
    const page: SourcePage = {
      httpStatus: document.status,
      bytes: document.bytes,
      ...(document.contentType !== undefined && { contentType: document.contentType }),
      setCookies: document.setCookies,
      requestedUrl: this.url,
      loadMs: Math.round(performance.now() - started),
    };
    this.deps.logger.debug(
      { url: this.url, status: page.httpStatus, bytes: page.bytes.length, loadMs: page.loadMs, browser: this.lease.slot.label },
      'page read',
    );
    return page;
  }

  /**
   * Stops the read, closes its page and context (or, after a direct read that succeeded, keeps them
   * warm for the next read: warm-pages.ts), and waits (at most `CLOSE_TIMEOUT_MS`) for its
   * navigation to let go.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    clearTimeout(this.deadline);
    this.request.signal?.removeEventListener('abort', this.onAbort);
    this.deps.interrupts.delete(this.interrupt);
    const kept = this.succeeded && this.browser && !this.request.identity?.proxyServer ? this.resources.keep() : undefined;
    if (kept) await this.deps.warm.put(this.lease.slot, { browser: this.browser!, ...kept });
    // Closing the page interrupts a navigation still in flight.
    await this.resources[Symbol.asyncDispose]();
    if (this.work) await within(this.work, CLOSE_TIMEOUT_MS);
  }

  private async navigate(): Promise<CapturedDocument> {
    const { pool, spares, warm, navTimeoutMs, sourceOrigin } = this.deps;
    const { resources, lease, url } = this;
    try {
      const browser = await pool.browserFor(lease, url, () => resources.isStopped);
      this.browser = browser;
      resources.throwIfStopped();
      const { identity } = this.request;
      // Warm pages and spares have no proxy: a proxied read opens its own context and leaves them to the next direct one.
      const used = identity?.proxyServer ? undefined : warm.take(lease.slot, browser);
      const spare = identity?.proxyServer || used ? undefined : await spares.take(lease.slot, browser);
      const page = await prepareReadPage(
        {
          slot: lease.slot, browser, ...(used && { spare: used, warm: true }), ...(spare && { spare }),
          marketplace: this.request.marketplace, url, ...(identity && { identity }),
        },
        resources,
      );
      const document = await capturePage(page, {
        url, timeoutMs: navTimeoutMs, ...(sourceOrigin !== undefined && { allowedOrigin: sourceOrigin }), ...(identity && { collectCookies: true }),
      });
      // Over already (interrupted while capturing): nobody else will close what was adopted late.
      if (resources.isStopped) await resources.close();
      return document;
    } catch (error) {
      await resources.close();
      throw error;
    }
  }
}
