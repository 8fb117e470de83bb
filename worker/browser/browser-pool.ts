/**
 * The pool of browsers the grid reads with, and the page slots on them: at most `maxPages` reads
 * per browser, `maxPages × browsers` in all, first come first served. A read holds a
 * {@link SlotLease} from the moment it gets a slot until its page is closed; a browser that fails
 * to (re)connect or launch is avoided for a while and the read moves to another one.
 */
import type { Logger } from 'pino';
import type { Browser } from 'puppeteer-core';
import { BrowserSlot, type BrowserSource } from './browser-slot.js';
import { BrowserGridError, SourceUnavailableError } from './errors.js';
import { Semaphore } from './semaphore.js';

/** How long a browser that failed to connect/launch is avoided while others are usable, ms. */
export const AVOID_AFTER_FAILURE_MS = 2_000;

/** Options of a {@link BrowserPool}. */
export interface BrowserPoolOptions {
  /** Concurrent pages per browser. */
  maxPages: number;
  /** Time limit of one CDP call, ms. */
  protocolTimeoutMs: number;
  logger: Logger;
}

/** A browser that could not be connected or launched, and why. */
export interface SlotFailure {
  slot: BrowserSlot;
  reason: unknown;
}

/**
 * One read's page slot: a permit of the pool and the browser it runs on. Disposing it (`using`)
 * gives both back; idempotent, so every path may release it.
 */
export class SlotLease implements Disposable {
  private released = false;

  constructor(
    private current: BrowserSlot,
    private readonly releasePermit: () => void,
  ) {
    current.active += 1;
  }

  /** The browser slot the read runs on (it changes when the read fails over). */
  get slot(): BrowserSlot {
    return this.current;
  }

  /** Moves the read to `next` (its browser failed to come up on the current one). */
  moveTo(next: BrowserSlot): void {
    if (this.released) return;
    this.current.active -= 1;
    next.active += 1;
    this.current = next;
  }

  /** Gives the slot and the permit back. */
  [Symbol.dispose](): void {
    if (this.released) return;
    this.released = true;
    this.current.active -= 1;
    this.releasePermit();
  }
}

/** The grid's browsers and the page slots on them. */
export class BrowserPool {
  /** Every browser, in endpoint order. */
  readonly slots: readonly BrowserSlot[];
  private readonly permits: Semaphore;
  private nextSlot = 0;

  constructor(
    sources: readonly BrowserSource[],
    private readonly options: BrowserPoolOptions,
  ) {
    const slotOptions = { protocolTimeoutMs: options.protocolTimeoutMs, logger: options.logger };
    this.slots = sources.map((source) => new BrowserSlot(source, slotOptions));
    this.permits = new Semaphore(options.maxPages * this.slots.length);
  }

  /** Reads holding a slot. */
  get activeReads(): number {
    return this.permits.active;
  }

  /** Reads waiting for a slot. */
  get queued(): number {
    return this.permits.queued;
  }

  /** True while any read holds or waits for a slot. */
  get busy(): boolean {
    return this.permits.active > 0 || this.permits.queued > 0;
  }

  /**
   * Connects (or launches) every browser at once. Those that fail are avoided for
   * {@link AVOID_AFTER_FAILURE_MS} and retried by later reads.
   * @returns the browsers that failed, with their errors.
   */
  async connectAll(): Promise<SlotFailure[]> {
    const results = await Promise.allSettled(this.slots.map((slot) => slot.acquire()));
    const failures = results.flatMap((r, i) => (r.status === 'rejected' ? [{ slot: this.slots[i]!, reason: r.reason as unknown }] : []));
    for (const { slot } of failures) slot.avoidUntil = Date.now() + AVOID_AFTER_FAILURE_MS;
    return failures;
  }

  /**
   * Waits for a page slot and leases it on the least busy browser.
   * @throws the error of `onAbort()` when `signal` aborts while waiting, or the one given to
   *   {@link rejectWaiters}.
   */
  async lease(signal?: AbortSignal, onAbort?: () => Error): Promise<SlotLease> {
    const release = await this.permits.acquire(signal, onAbort);
    try {
      // A held permit guarantees a browser below maxPages (permits = maxPages × browsers).
      return new SlotLease(this.pickSlot()!, release);
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * The leased slot's browser, (re)connecting or relaunching it; when that fails, the lease moves
   * to the next browser not yet tried (unless `stopped()`), and the failed one is avoided for a while.
   * @throws SourceUnavailableError (reason `browser`) when no browser could be reached.
   * @throws BrowserGridError as the slot threw it (e.g. ChromeNotFoundError).
   */
  async browserFor(lease: SlotLease, url: string, stopped: () => boolean): Promise<Browser> {
    const tried = new Set<BrowserSlot>();
    for (;;) {
      const slot = lease.slot;
      try {
        return await slot.acquire();
      } catch (error) {
        slot.avoidUntil = Date.now() + AVOID_AFTER_FAILURE_MS;
        tried.add(slot);
        const next = stopped() || error instanceof BrowserGridError ? undefined : this.pickSlot(tried);
        if (!next) {
          if (error instanceof BrowserGridError) throw error;
          const message = error instanceof Error ? error.message : String(error);
          throw new SourceUnavailableError(`browser ${slot.label} unavailable: ${message}`, 'browser', url, { cause: error });
        }
        this.options.logger.warn({ err: error, browser: slot.label, next: next.label }, 'browser unavailable; trying another');
        lease.moveTo(next);
      }
    }
  }

  /** Rejects every read waiting for a slot with `error` (reads holding one are unaffected). */
  rejectWaiters(error: Error): void {
    this.permits.rejectAll(error);
  }

  /** Disconnects from remote browsers and closes the local one. */
  async close(): Promise<void> {
    await Promise.allSettled(this.slots.map((slot) => slot.close()));
  }

  /**
   * Least busy browser below `maxPages`, avoiding recently failed ones, ties round-robin.
   * `exclude` (browsers that just failed for this read) can leave none.
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
}
