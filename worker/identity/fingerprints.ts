/**
 * Browser fingerprints of sessions: Apify's fingerprint-generator draws a plausible desktop Chrome
 * (user agent, client hints, screen, navigator) from real-world statistics, in the marketplace's
 * locale; fingerprint-injector applies it to a page (user agent, headers, screen metrics, and a
 * script that makes navigator and screen agree). The marketplace's `Accept-Language` (core/
 * marketplaces.ts) is kept exactly, so the source answers in the marketplace's language as before.
 */
import { FingerprintGenerator, type BrowserFingerprintWithHeaders } from 'fingerprint-generator';
import { FingerprintInjector } from 'fingerprint-injector';
import type { Page } from 'puppeteer-core';
import type { Marketplace } from '../../core/marketplaces.js';

export type { BrowserFingerprintWithHeaders };

let generator: FingerprintGenerator | undefined;
let injector: FingerprintInjector | undefined;

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

/** Applies `fingerprint` to `page` before it navigates (fingerprint-injector's Puppeteer path). */
export async function applyFingerprint(page: Page, fingerprint: BrowserFingerprintWithHeaders): Promise<void> {
  injector ??= new FingerprintInjector();
  await injector.attachFingerprintToPuppeteer(page, fingerprint);
}
