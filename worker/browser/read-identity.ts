/**
 * What the grid asks of the identity a read goes out with (worker/identity implements it): the
 * proxy its context is opened with, the cookies the session holds, and the page's preparation
 * (proxy credentials, user agent, headers). The grid knows nothing of sessions, pools or
 * fingerprints; a read without an identity is prepared as before (page-setup.ts).
 */
import type { BrowserContextOptions, CookieData, Page } from 'puppeteer-core';

/** The identity of one read. */
export interface ReadIdentity {
  /**
   * Chromium's proxy for the read's context, `scheme://host:port` (never credentials); undefined →
   * the read goes out directly and may run on a spare context.
   */
  readonly proxyServer?: string;
  /** The session's cookies for `url` (set before the marketplace's language and currency cookies). */
  cookies(url: string): CookieData[];
  /**
   * Prepares `page` before it navigates: answers the proxy's credential challenge
   * (`page.authenticate`), sets the user agent, `Accept-Language` and the client hints.
   */
  preparePage(page: Page): Promise<void>;
}

/**
 * The options of the read's incognito context: the identity's proxy, used for every host,
 * loopback included (Chromium bypasses proxies for loopback unless told `<-loopback>`; in replay
 * mode the stand-in origin is on loopback).
 */
export function contextOptions(identity: ReadIdentity | undefined): BrowserContextOptions | undefined {
  if (!identity?.proxyServer) return undefined;
  return { proxyServer: identity.proxyServer, proxyBypassList: ['<-loopback>'] };
}
