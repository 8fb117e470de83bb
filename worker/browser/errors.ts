/**
 * Errors of the browser grid. The class encodes the retry semantics (`retryable`); the activity
 * boundary translates them once (style-anchors.md §8.5). A page the source answered, whatever
 * its status (404, 503, robot check), is NOT an error here: it is returned as a SourcePage.
 */

/** Base of every error the browser grid throws. */
export abstract class BrowserGridError extends Error {
  /** True when the same read may succeed if tried again (elsewhere or later). */
  abstract readonly retryable: boolean;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Why a read could not reach the source. */
export type SourceUnavailableReason =
  /** The navigation (or the whole read) exceeded its time limit. */
  | 'timeout'
  /** The network request failed (connection refused or reset, DNS, TLS ...). */
  | 'network'
  /** The browser could not be reached, crashed or disconnected during the read. */
  | 'browser';

/**
 * The page could not be read: navigation timeout, network failure, browser unreachable, crashed
 * or disconnected. Retryable.
 */
export class SourceUnavailableError extends BrowserGridError {
  readonly retryable = true;

  constructor(
    message: string,
    readonly reason: SourceUnavailableReason,
    /** The URL that was requested, when the read got that far. */
    readonly url?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The caller's AbortSignal fired before the read finished. Not retryable: the caller gave up. */
export class ReadCancelledError extends BrowserGridError {
  readonly retryable = false;
}

/** `read()` was called on, or interrupted by, a closed grid. */
export class BrowserGridClosedError extends BrowserGridError {
  readonly retryable = false;
}

/** No Chromium binary was found; `tried` lists every candidate looked at. Not retryable. */
export class ChromeNotFoundError extends BrowserGridError {
  readonly retryable = false;

  constructor(readonly tried: readonly string[]) {
    super(`no Chromium found (tried ${tried.join(', ')}); install Chromium or set CHROME_PATH or BROWSER_WS_ENDPOINTS`);
  }
}

/** `BrowserGrid.start` could not connect to or launch any browser. Not retryable at that point. */
export class BrowserStartError extends BrowserGridError {
  readonly retryable = false;
}
