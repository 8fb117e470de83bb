/**
 * The parse pool's thread entry (worker/parser/parse-pool.ts): decodes and parses one page in a
 * worker thread, so the API and the Temporal worker on the main thread never wait behind it.
 */
import { resolveMarketplace, type MarketplaceCode } from '../../core/marketplaces.js';
import type { PageParse } from '../../core/product.js';
import { decodePage, parseProductPage } from './index.js';

/** One page to parse: its bytes (copied into the thread), its Content-Type and its marketplace's code. */
export interface ParseJob {
  bytes: Uint8Array;
  contentType?: string;
  marketplace: MarketplaceCode;
}

/** The parse and the thread's time spent on decode + parse, ms. */
export interface ParseAnswer {
  parsed: PageParse;
  parseMs: number;
}

/**
 * Decodes and parses one page (`decodePage`, then `parseProductPage`).
 * @throws Error for a marketplace code the service does not know.
 */
export default function parseJob(job: ParseJob): ParseAnswer {
  const marketplace = resolveMarketplace(job.marketplace);
  if (!marketplace) throw new Error(`unknown marketplace ${job.marketplace}`);
  const started = performance.now();
  const parsed = parseProductPage(decodePage(job.bytes, job.contentType), marketplace);
  return { parsed, parseMs: performance.now() - started };
}
