/**
 * What a read asks for and what it answers: the shapes shared by the grid, its read sessions and
 * the product-read activity.
 */
import type { Marketplace } from '../../core/marketplaces.js';
import type { ReadIdentity } from './read-identity.js';

/** One read: the product page of `asin` on `marketplace`, or with `search` a search results page. */
export interface ReadRequest {
  marketplace: Marketplace;
  /** 10 characters, letters and digits; upper-cased in the URL. Ignored with `search`. */
  asin: string;
  /** The results page `page` (1-based) of `keyword`: `/s?k=<keyword>[&page=<n>]` (operations-contract.md). */
  search?: { keyword: string; page: number };
  /** Aborting rejects the read with `ReadCancelledError` after its page and context are closed. */
  signal?: AbortSignal;
  /** The session the read goes out with (proxy, cookies, fingerprint); unset → direct, the slot's user agent. */
  identity?: ReadIdentity;
}

/** The main document of a product page as the source answered it (not interpreted). */
export interface SourcePage {
  /** HTTP status of the main document (404 and 5xx are returned, not thrown). */
  httpStatus: number;
  /**
   * The body exactly as received (any charset; not re-encoded). A parse on the pool's threads takes
   * its buffer over, leaving this empty (worker/parser/parse-pool.ts `ParsePool.parse`).
   */
  bytes: Uint8Array;
  /** The `Content-Type` header, when the response had one. */
  contentType?: string;
  /** The main document's `Set-Cookie` header values (for the session's cookie jar); empty when none. */
  setCookies: string[];
  /** The URL navigated to. */
  requestedUrl: string;
  /** Time from acquiring a page slot to having the bytes (context setup + navigation), ms. Queue wait excluded. */
  loadMs: number;
  /**
   * Tells the grid that the caller is done with the page (bytes parsed, observation stored): its
   * page and context close `CLOSE_AFTER_DONE_MS` later. A read that was the grid's only one holds
   * them until then, so that Chromium's teardown (a renderer exiting) does not compete for the CPU
   * with the caller's parse and database writes; with other reads under way they close at once, as
   * soon as the bytes are taken. Idempotent; when it is not called, they close when the next read
   * starts, at grid close, or after `RELEASE_TIMEOUT_MS`. Absent on pages that do not come from a
   * grid (worker/browser/held-pages.ts).
   */
  done?: () => void;
}
