/**
 * The parse pool's thread entry (worker/parser/parse-pool.ts): decodes and parses one page in a
 * worker thread, so the API and the Temporal worker on the main thread never wait behind it.
 */
import os from 'node:os';
import { workerData } from 'node:worker_threads';
import { resolveMarketplace, type MarketplaceCode } from '../../core/marketplaces.js';
import type { PageParse } from '../../core/product.js';
import type { SearchPageParse } from '../../core/search.js';
import { decodePage, parseProductPage } from './index.js';
import { parseSearchPage } from './search/index.js';

/** What the pool passes as `workerData`. */
export interface ParseThreadData {
  /** Nice value (0–19) this thread takes at start. */
  nice: number;
}

// Linux keeps a nice value per thread: with pid 0, setpriority(2) changes this thread alone, so
// parses yield the CPU to the API and the database on the main thread and leave them their priority.
const { nice } = (workerData ?? { nice: 0 }) as ParseThreadData;
if (nice > 0 && os.getPriority(0) < nice) os.setPriority(0, nice);

/** One page to parse: its bytes (copied into the thread), its Content-Type and its marketplace's code. */
export interface ParseJob {
  bytes: Uint8Array;
  contentType?: string;
  marketplace: MarketplaceCode;
  /** `search`: a search results page (`parseSearchPage`); else a product page. */
  page?: 'search';
}

/** The parse and the thread's time spent on decode + parse, ms. */
export interface ParseAnswer {
  parsed: PageParse;
  parseMs: number;
}

/** A search job's answer. */
export interface SearchParseAnswer {
  parsed: SearchPageParse;
  parseMs: number;
}

/**
 * Decodes and parses one page (`decodePage`, then `parseProductPage`, or `parseSearchPage` for a
 * search job).
 * @throws Error for a marketplace code the service does not know.
 */
export default function parseJob(job: ParseJob): ParseAnswer | SearchParseAnswer {
  const marketplace = resolveMarketplace(job.marketplace);
  if (!marketplace) throw new Error(`unknown marketplace ${job.marketplace}`);
  const started = performance.now();
  const html = decodePage(job.bytes, job.contentType);
  const parsed = job.page === 'search' ? parseSearchPage(html, marketplace) : parseProductPage(html, marketplace);
  return { parsed, parseMs: performance.now() - started } as ParseAnswer | SearchParseAnswer;
}
