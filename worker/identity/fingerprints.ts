/**
 * Browser fingerprints of sessions: Apify's fingerprint-generator draws a plausible desktop Chrome
 * (user agent, client hints, screen, navigator) from real-world statistics, in the marketplace's
 * locale. The marketplace's `Accept-Language` (core/marketplaces.ts) is kept exactly, so the source
 * answers in the marketplace's language as before.
 *
 * Only what goes on the wire is applied: the user agent, the client hints and the language, sent
 * to Chromium at once. The JavaScript-visible half of a fingerprint (navigator, screen; what
 * fingerprint-injector's script would patch into every document) has nobody to observe it: the
 * grid hands Chromium a stand-in for the document and runs no script (worker/browser/page-setup.ts,
 * page-capture.ts), so injecting it would only cost each read a script compiled in a fresh renderer,
 * a viewport change and their CDP round trips. The request-dependent headers the generator also
 * draws (`Accept`, `Sec-Fetch-*`, …) are left to Chromium, which writes them per request.
 */
import { FingerprintGenerator, type BrowserFingerprintWithHeaders } from 'fingerprint-generator';
import type { Page } from 'puppeteer-core';
import type { Marketplace } from '../../core/marketplaces.js';

export type { BrowserFingerprintWithHeaders };

let generator: FingerprintGenerator | undefined;

/** The headers of a fingerprint that hold for every request of the browser: its client hints and language. */
function browserWideHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => /^sec-ch-ua(-|$)|^accept-language$/i.test(name)));
}

/**
 * The languages of an `Accept-Language` value, in order: `de-DE,de;q=0.9` → `['de-DE', 'de']`.
 */
export function localesOf(acceptLanguage: string): string[] {
  return acceptLanguage.split(',').map((part) => part.split(';')[0]!.trim()).filter(Boolean);
}

/**
 * A new desktop Chrome fingerprint for `marketplace`: its locales, and its exact `Accept-Language`
 * header. Chrome only: Chromium reads the page, so a Firefox or Safari fingerprint would
 * contradict its own network behaviour.
 */
export function marketplaceFingerprint(marketplace: Marketplace): BrowserFingerprintWithHeaders {
  generator ??= new FingerprintGenerator({ devices: ['desktop'], browsers: ['chrome'], operatingSystems: ['windows', 'macos', 'linux'] });
  const drawn = generator.getFingerprint({ locales: localesOf(marketplace.acceptLanguage) });
  return { ...drawn, headers: { ...drawn.headers, 'accept-language': marketplace.acceptLanguage } };
}

/** Applies `fingerprint` to `page` before it navigates: its user agent, client hints and language (what the source sees). */
export async function applyFingerprint(page: Page, fingerprint: BrowserFingerprintWithHeaders): Promise<void> {
  await Promise.all([
    page.setUserAgent({ userAgent: fingerprint.fingerprint.navigator.userAgent }),
    page.setExtraHTTPHeaders(browserWideHeaders(fingerprint.headers)),
  ]);
}
