/**
 * Prepares the page one read navigates in: a fresh incognito context (a spare one when ready, see
 * worker/browser/spare-pages.ts) with the marketplace's language and currency pinned
 * (`i18n-prefs`/`lc-main` cookies, `Accept-Language`) and a user agent without `HeadlessChrome`,
 * so the source answers as it would a shopper of that marketplace, and JavaScript off. A read with an identity
 * (read-identity.ts) gets its context through the identity's proxy, the session's cookies, and
 * the identity's own page preparation (fingerprint, proxy credentials) in place of the slot's
 * user agent.
 */
import type { Browser, Page } from 'puppeteer-core';
import type { Marketplace } from '../../core/marketplaces.js';
import type { BrowserSlot } from './browser-slot.js';
import { contextOptions, type ReadIdentity } from './read-identity.js';
import type { ReadResources } from './read-resources.js';
import type { SparePage } from './spare-pages.js';

/** Where the page is opened and for what. */
export interface PageSetup {
  /** The slot the read holds (its user agent is cached there). */
  slot: BrowserSlot;
  /** The slot's connected browser. */
  browser: Browser;
  /** A blank page in its own context on `browser`, opened ahead of time; else one is opened now. */
  spare?: SparePage;
  /** `spare` is a warm page (warm-pages.ts): an earlier read's, JavaScript and cache already off, cookies to delete. */
  warm?: boolean;
  /** Decides the cookies (`i18n-prefs` currency, `lc-main` language) and `Accept-Language`. */
  marketplace: Marketplace;
  /** The product URL the page will navigate to (its host receives the cookies). */
  url: string;
  /** The session the read goes out with; a proxied one never gets a spare (spares have no proxy). */
  identity?: ReadIdentity;
}

/**
 * Opens (or takes the spare) context and page, hands each to `resources` as soon as it exists (so
 * an interrupted read still closes it), and pins language, currency and user agent.
 * @throws ReadStoppedError when the read is over between two steps; puppeteer's errors otherwise.
 */
export async function prepareReadPage(setup: PageSetup, resources: ReadResources): Promise<Page> {
  const { browser, spare, marketplace, url, identity } = setup;
  const options = contextOptions(identity);
  const context = options ? await browser.createBrowserContext(options) : (spare?.context ?? (await browser.createBrowserContext()));
  resources.adoptContext(context);
  if (spare && !options) resources.adoptPage(spare.page);
  resources.throwIfStopped();
  const warm = setup.warm === true && spare !== undefined && !options;
  if (warm) {
    // Nothing an earlier read's responses or session left in the jar goes out with this one.
    const left = await context.cookies();
    if (left.length > 0) await context.deleteCookie(...left);
    resources.throwIfStopped();
  }
  const host = new URL(url).hostname;
  await context.setCookie(
    ...(identity?.cookies(url) ?? []),
    { name: 'i18n-prefs', value: marketplace.currency, domain: host, path: '/' },
    { name: 'lc-main', value: marketplace.language, domain: host, path: '/' },
  );
  resources.throwIfStopped();
  let page = resources.currentPage;
  if (!page) {
    page = await context.newPage();
    resources.adoptPage(page);
  }
  resources.throwIfStopped();
  // No script of any document runs: the read parses the bytes itself (page-capture.ts aborts the
  // document's navigation), so this holds even when a document reaches Chromium uncaptured. No HTTP
  // cache either (a page may serve later reads: warm-pages.ts). A warm page has both off already.
  const scriptsOff = warm ? undefined : Promise.all([page.setJavaScriptEnabled(false), page.setCacheEnabled(false)]);
  if (identity) {
    await Promise.all([identity.preparePage(page), scriptsOff]);
  } else {
    await Promise.all([
      page.setExtraHTTPHeaders({ 'Accept-Language': marketplace.acceptLanguage }),
      page.setUserAgent({ userAgent: await setup.slot.headfulUserAgent(browser) }),
      scriptsOff,
    ]);
  }
  resources.throwIfStopped();
  return page;
}
