/**
 * Classifies whatever a read threw into the grid's error vocabulary (worker/browser/errors.ts), so
 * that callers decide on retries by class, never by puppeteer's messages.
 */
import { ProtocolError, TimeoutError } from 'puppeteer-core';
import { BrowserGridError, SourceUnavailableError } from './errors.js';

/**
 * Maps an error thrown while reading `url` to a {@link BrowserGridError}: grid errors pass
 * through; timeouts, `net::ERR_…` failures and any other browser failure become a retryable
 * {@link SourceUnavailableError} with reason `timeout`, `network` or `browser`.
 */
export function classifyReadFailure(error: unknown, url: string): BrowserGridError {
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
