/**
 * Where a read's page is decoded and parsed. The parse is pure and synchronous (tens of ms of CPU
 * per page), so on the main thread it holds up the API and the Temporal worker that share the
 * process; `ParsePool` runs it on worker threads instead (the piscina library owns the threads,
 * their queue and their restart after a crash). `inlinePageParser` parses on the caller's thread
 * (PARSE_THREADS=0, and callers that have no pool, such as tests of the grid).
 */
import os from 'node:os';
import { isMarkedAsUntransferable } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Marketplace } from '../../core/marketplaces.js';
import { trackParseThreadHeaps, type ThreadHeap } from '../../core/metrics.js';
import { threadEntry } from '../../core/thread-entry.js';
import type { PageParse } from '../../core/product.js';
import type { SearchPageParse } from '../../core/search.js';
import type { ParseAnswer, ParseJob, ParseThreadData, SearchParseAnswer } from './parse-thread.js';

/** Decodes and parses a read page; `parseMs` is the decode + parse time itself (no queueing), ms. */
export interface PageParser {
  parse(bytes: Uint8Array, contentType: string | undefined, marketplace: Marketplace): Promise<{ parsed: PageParse; parseMs: number }>;
  /** The same for a search results page (`parseSearchPage`). */
  parseSearch(bytes: Uint8Array, contentType: string | undefined, marketplace: Marketplace): Promise<{ parsed: SearchPageParse; parseMs: number }>;
}

let parserModule: typeof import('./index.js') | undefined;
let searchParserModule: typeof import('./search/index.js') | undefined;

/**
 * Parses on the calling thread: the page's decode + parse blocks the event loop while it runs.
 * The parser (and jsdom with it) is loaded at the first parse, so a process that parses on its
 * pool's threads never holds it in its own heap, where every full collection would mark it.
 */
export const inlinePageParser: PageParser = {
  async parse(bytes, contentType, marketplace) {
    const { decodePage, parseProductPage } = (parserModule ??= await import('./index.js'));
    const started = performance.now();
    const parsed = parseProductPage(decodePage(bytes, contentType), marketplace);
    return { parsed, parseMs: performance.now() - started };
  },
  async parseSearch(bytes, contentType, marketplace) {
    const { decodePage } = (parserModule ??= await import('./index.js'));
    const { parseSearchPage } = (searchParserModule ??= await import('./search/index.js'));
    const started = performance.now();
    const parsed = parseSearchPage(decodePage(bytes, contentType), marketplace);
    return { parsed, parseMs: performance.now() - started };
  },
};

/**
 * A pool of `threads` worker threads that decode and parse pages; `close()` ends them. While open,
 * its threads' heaps are in the `retail_parse_thread_heap_bytes` gauge (core/metrics.ts).
 */
export class ParsePool implements PageParser {
  private readonly pool: Piscina<ParseJob, ParseAnswer | SearchParseAnswer>;
  private readonly untrack: () => void;

  /**
   * @param threads worker threads (≥ 1), all started at once so the first reads pay no thread start-up
   * @param onThreadError told when a thread fails while it holds no parse (piscina replaces it); a
   *   failure during a parse rejects that parse instead. Without a listener piscina's `error` event
   *   would end the process.
   * @param nice nice value (0–19) each thread gives itself: parses yield the CPU to the API (READ_NICE)
   */
  constructor(threads: number, onThreadError: (error: Error) => void = () => undefined, nice = 0) {
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`parse threads: ${threads} (≥ 1)`);
    const { filename, execArgv } = threadEntry(import.meta.url, 'parse-thread');
    const workerData: ParseThreadData = { nice };
    this.pool = new Piscina({ filename, execArgv, workerData, minThreads: threads, maxThreads: threads, idleTimeout: Infinity });
    this.pool.on('error', onThreadError);
    this.untrack = trackParseThreadHeaps(() => this.heaps());
  }

  /**
   * The V8 heap of each running thread (`Worker.getHeapStatistics()`, bytes); a thread that ends
   * while asked is left out.
   */
  async heaps(): Promise<ThreadHeap[]> {
    const answers = await Promise.allSettled(this.pool.threads.map((thread) => thread.getHeapStatistics()));
    return answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
  }

  /**
   * Parses on a pool thread. The bytes move to the thread: when they are the whole of their
   * ArrayBuffer, that buffer is transferred and the caller's array is left empty (length 0); a view
   * of a larger buffer (a small Buffer from Node's pool, say) is copied first, and the caller's view
   * stays as it was.
   *
   * Why move: V8 starts a full collection of this thread's heap whenever its off-heap memory has
   * grown by 64 MB, and a copied page (≈ 1 MB) counted here until a collection freed it; a
   * transferred one stops counting at once (BENCHMARKS.md, "Eleventh change").
   * @throws what the parse threw; an Error when the pool is closed.
   */
  async parse(bytes: Uint8Array, contentType: string | undefined, marketplace: Marketplace): Promise<{ parsed: PageParse; parseMs: number }> {
    return this.run(bytes, contentType, marketplace) as Promise<ParseAnswer>;
  }

  /** `parse` for a search results page (`parseSearchPage` on a pool thread). */
  async parseSearch(bytes: Uint8Array, contentType: string | undefined, marketplace: Marketplace): Promise<{ parsed: SearchPageParse; parseMs: number }> {
    return this.run(bytes, contentType, marketplace, 'search') as Promise<SearchParseAnswer>;
  }

  private async run(bytes: Uint8Array, contentType: string | undefined, marketplace: Marketplace, page?: 'search'): Promise<ParseAnswer | SearchParseAnswer> {
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    // `new Uint8Array(view)` copies (a Buffer's own `slice` would not); Node's Buffer pool cannot move.
    const own = whole && bytes.buffer instanceof ArrayBuffer && !isMarkedAsUntransferable(bytes.buffer) ? bytes : new Uint8Array(bytes);
    const job: ParseJob = { bytes: own, ...(contentType !== undefined && { contentType }), marketplace: marketplace.code, ...(page && { page }) };
    return this.pool.run(job, { transferList: [own.buffer as ArrayBuffer] });
  }

  /** Ends the threads; parses under way are rejected. */
  async close(): Promise<void> {
    this.untrack();
    await this.pool.destroy();
  }
}

/** PARSE_THREADS when unset: min(2, cores − 1), at least 1 — one core stays for the API, the worker and Chromium. */
export function defaultParseThreads(cores = os.availableParallelism()): number {
  return Math.min(2, Math.max(1, cores - 1));
}

/**
 * The configured parser (PARSE_THREADS): a pool of `threads` threads (unset → `defaultParseThreads()`),
 * or the inline parser for 0 (`close` is then a no-op). `onThreadError`, `nice`: see `ParsePool`.
 */
export function createPageParser(threads: number | undefined, onThreadError: (error: Error) => void, nice = 0): PageParser & { close(): Promise<void> } {
  const n = threads ?? defaultParseThreads();
  return n > 0 ? new ParsePool(n, onThreadError, nice) : { ...inlinePageParser, close: () => Promise.resolve() };
}
