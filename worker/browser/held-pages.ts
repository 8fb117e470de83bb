/**
 * Pages of finished reads held open until their caller is done with the bytes. A renderer exiting
 * costs CPU; while a read is the grid's only one, that teardown is put off until the caller has
 * parsed and stored (`SourcePage.done`), or until the next read starts. With other reads under
 * way the teardown overlaps them anyway, so the page closes at once and frees its slot soonest.
 */
import type { SourcePage } from './source-page.js';

/** A read's page and context close at the latest this long after its bytes were taken (ms; `SourcePage.done`). */
export const RELEASE_TIMEOUT_MS = 2_000;

/**
 * After the caller's `done()`, a lone read's page and context close this much later (ms), unless the
 * next read starts first: the caller's last steps (its workflow ending, the API answering a live
 * read) then do not share the CPU with Chromium's teardown either.
 */
export const CLOSE_AFTER_DONE_MS = 200;

/** How busy the grid is, as the hold decides. */
export interface GridLoad {
  /** Reads holding a page slot (this one included). */
  activeReads: number;
  /** Reads waiting for a page slot. */
  queued: number;
  /** True once the grid is closing. */
  closing: boolean;
}

/** The finished reads whose page waits for its caller; each is let go once. */
export class HeldPages {
  private readonly waiting = new Set<() => void>();

  constructor(private readonly load: () => GridLoad) {}

  /**
   * Sets `page.done` and resolves when the page may close: at once when other reads are under way
   * or queued (or the grid closes), else {@link CLOSE_AFTER_DONE_MS} after `done()`, when
   * {@link releaseAll} is called, or {@link RELEASE_TIMEOUT_MS} after the bytes were taken.
   * Never rejects.
   */
  hold(page: SourcePage): Promise<void> {
    const { released, done } = this.release();
    page.done = done;
    return released;
  }

  /**
   * One hold's release: its timers and callbacks. None of them can reach the page, so a timer still
   * pending after the caller is done does not keep the page's bytes alive; bytes that outlive a
   * young-generation collection are freed only by a full collection of the heap.
   */
  private release(): { released: Promise<void>; done: () => void } {
    let resolve!: () => void;
    const released = new Promise<void>((r) => {
      resolve = r;
    });
    const letGo = (): void => {
      clearTimeout(fallback);
      this.waiting.delete(letGo);
      resolve();
    };
    const fallback = setTimeout(letGo, RELEASE_TIMEOUT_MS);
    fallback.unref();
    this.waiting.add(letGo);
    const done = (): void => {
      if (this.load().activeReads > 1) letGo();
      else setTimeout(letGo, CLOSE_AFTER_DONE_MS).unref();
    };
    const { activeReads, queued, closing } = this.load();
    if (closing || activeReads > 1 || queued > 0) letGo();
    return { released, done };
  }

  /** Lets every held page close now (a new read starts, or the grid closes). */
  releaseAll(): void {
    for (const letGo of [...this.waiting]) letGo();
  }
}
