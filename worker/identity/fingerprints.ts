/**
 * Browser fingerprints of sessions: Apify's fingerprint-generator draws a plausible desktop Chrome
 * (user agent, client hints, screen, navigator) from real-world statistics, in the marketplace's
 * locale; fingerprint-injector's script makes the page's navigator and screen agree with it. The
 * marketplace's `Accept-Language` (core/marketplaces.ts) is kept exactly, so the source answers in
 * the marketplace's language as before.
 *
 * The page settings are sent to Chromium at once rather than one after another as the injector's
 * `attachFingerprintToPuppeteer` does (it costs a read several CDP round trips in a row); what
 * reaches the source is the same: the user agent, the client hints and the language. The
 * request-dependent headers the generator also draws (`Accept`, `Sec-Fetch-*`, …) are left to
 * Chromium, which writes them per request.
 */
import { FingerprintGenerator, type BrowserFingerprintWithHeaders } from 'fingerprint-generator';
import { FingerprintInjector } from 'fingerprint-injector';
import type { Page } from 'puppeteer-core';
import type { Marketplace } from '../../core/marketplaces.js';

export type { BrowserFingerprintWithHeaders };

let generator: FingerprintGenerator | undefined;
let injector: FingerprintInjector | undefined;
/** The injector's script of each fingerprint, built once per session (≈ 33 KB of text). */
const scripts = new WeakMap<BrowserFingerprintWithHeaders, string>();

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

/** Applies `fingerprint` to `page` before it navigates: user agent, client hints and language, screen, the injector's script. */
export async function applyFingerprint(page: Page, fingerprint: BrowserFingerprintWithHeaders): Promise<void> {
  injector ??= new FingerprintInjector();
  let script = scripts.get(fingerprint);
  if (script === undefined) {
    script = injector.getInjectableScript(fingerprint);
    scripts.set(fingerprint, script);
  }
  const { screen, navigator } = fingerprint.fingerprint;
  await Promise.all([
    page.setUserAgent({ userAgent: navigator.userAgent }),
    page.setExtraHTTPHeaders(browserWideHeaders(fingerprint.headers)),
    page.setViewport({ width: screen.width, height: screen.height, deviceScaleFactor: screen.devicePixelRatio }),
    page.evaluateOnNewDocument(script),
  ]);
}
