/**
 * Identities page reads go out with. A session is one proxy (or none: direct), one cookie jar and
 * one browser fingerprint consistent with its marketplace (fingerprints.ts). Libraries do the
 * keeping: Crawlee's `SessionPool` (one per marketplace and proxy, in memory only) creates,
 * rotates, heals (`markGood`), wears out (`markBad`, usage count, age) and retires sessions and
 * holds each one's cookie jar; Crawlee's `ProxyConfiguration` rotates a marketplace's proxies
 * round-robin. This module adds what the issue asks beyond them: another proxy for a retry, and
 * quarantine (proxy-health.ts), so that a read never waits on a proxy that is mostly blocked.
 */
import { Configuration, Log, LogLevel, ProxyConfiguration, Session, SessionPool, type ProxyInfo } from '@crawlee/core';
import type { Logger } from 'pino';
import type { CookieData, Page } from 'puppeteer-core';
import { sourceProxiesFor, type Config } from '../../core/config.js';
import { MARKETPLACE_CODES, type Marketplace, type MarketplaceCode } from '../../core/marketplaces.js';
import { sourceProxyLatency, sourceProxyReads } from '../../core/metrics.js';
import type { SourceProxy } from '../../core/proxy-list.js';
import type { SourceAttemptOutcome } from '../../core/domain/task-messages.js';
import type { ReadIdentity } from '../browser/read-identity.js';
import { applyFingerprint, marketplaceFingerprint, type BrowserFingerprintWithHeaders } from './fingerprints.js';
import { ProxyHealth } from './proxy-health.js';

/** How metrics and logs name the route of reads without a proxy. */
export const DIRECT = 'direct';

/**
 * Whether an attempt got the page it asked for: a product page, a results page (search reads) or
 * the marketplace's "not found". The identity works: its session is kept (cookies and fingerprint
 * for the next read) and its proxy is not charged a block.
 */
function readThePage(outcome: SourceAttemptOutcome): boolean {
  return outcome === 'product' || outcome === 'search' || outcome === 'not_found';
}

/** Sessions kept per marketplace and proxy (Crawlee `maxPoolSize`): enough for every attempt of a read to get its own. */
export const SESSIONS_PER_PROXY = 3;

/** Options of {@link SourceIdentities}. */
export interface SourceIdentitiesOptions {
  /** The proxies of a marketplace (config `sourceProxiesFor`); empty → direct. */
  proxiesFor(code: MarketplaceCode): readonly SourceProxy[];
  /** SOURCE_PROXY_MAX_BLOCK_RATE (0..1). */
  maxBlockRate: number;
  /** SOURCE_PROXY_COOLDOWN, ms. */
  cooldownMs: number;
  logger: Logger;
  /** Clock of the quarantines (ms); tests move it. */
  now?: () => number;
}

/** Every proxy of the marketplace is quarantined: there is no identity to read with. */
export class NoSourceIdentityError extends Error {
  override name = 'NoSourceIdentityError';
}

/** What a read must not go out with again: the sessions and proxies its earlier attempts used. */
export interface Avoid {
  sessions: ReadonlySet<string>;
  proxies: ReadonlySet<string>;
}

/** One attempt's identity, checked out for one read. */
export interface IdentityLease {
  readonly identity: ReadIdentity;
  readonly sessionId: string;
  /** The proxy's label, or {@link DIRECT}. */
  readonly proxy: string;
  /**
   * Records how the attempt ended: the session is healed (a page), retired (blocked, proxy error)
   * or marked bad (unavailable); the proxy's health and metrics count it; the page's `Set-Cookie`
   * values go into the session's jar. Call once.
   */
  settle(outcome: SourceAttemptOutcome, ms: number, setCookies?: readonly string[], url?: string): void;
}

/** A marketplace's proxies and their rotation. */
interface Routes {
  proxies: readonly SourceProxy[];
  rotation: ProxyConfiguration | undefined;
  byUrl: Map<string, SourceProxy>;
}

const silent = new Log({ level: LogLevel.OFF });

/**
 * Crawlee's rotation over `proxies`. Its validation error would quote the URL (credentials and
 * all), so it is replaced by one naming the marketplace only.
 * @throws Error when Crawlee refuses an entry that core/proxy-list.ts accepted.
 */
function rotationOf(proxies: readonly SourceProxy[], code: MarketplaceCode): ProxyConfiguration {
  try {
    return new ProxyConfiguration({ proxyUrls: proxies.map((p) => p.revealUrl()) });
  } catch {
    throw new Error(`Crawlee's ProxyConfiguration refused a proxy of marketplace ${code} (${proxies.map((p) => p.label).join(', ')})`);
  }
}

/** One of `choices`, at random. */
function pick<T>(choices: readonly T[]): T {
  return choices[Math.floor(Math.random() * choices.length)]!;
}

/** The identity of a session, as the grid uses it (worker/browser/read-identity.ts). */
class SessionIdentity implements ReadIdentity {
  readonly proxyServer?: string;

  constructor(
    private readonly session: Session,
    private readonly proxy: SourceProxy | undefined,
  ) {
    if (proxy) this.proxyServer = proxy.server;
  }

  cookies(url: string): CookieData[] {
    const host = new URL(url).hostname;
    return this.session.getCookies(url).map((c) => ({
      name: c.name, value: c.value, domain: c.domain ?? host, path: c.path ?? '/',
      ...(c.expires !== undefined && c.expires > 0 && { expires: c.expires }),
      ...(c.secure !== undefined && { secure: c.secure }),
      ...(c.httpOnly !== undefined && { httpOnly: c.httpOnly }),
    }));
  }

  async preparePage(page: Page): Promise<void> {
    const credentials = this.proxy?.revealCredentials();
    await Promise.all([
      credentials && page.authenticate(credentials),
      applyFingerprint(page, this.session.userData.fingerprint as BrowserFingerprintWithHeaders),
    ]);
  }
}

/** The identities of every marketplace's reads, shared by the reads of one worker process. */
export class SourceIdentities {
  private readonly health: ProxyHealth;
  private readonly routes = new Map<MarketplaceCode, Routes>();
  private readonly pools = new Map<string, Promise<SessionPool>>();
  /** Crawlee's services (storage, events) for these pools only: in memory, nothing written to disk. */
  private readonly crawlee = new Configuration({ persistStorage: false, purgeOnStart: false });

  /** @throws Error when Crawlee refuses a marketplace's proxy list (at start, not on a read). */
  constructor(private readonly options: SourceIdentitiesOptions) {
    this.health = new ProxyHealth({ maxBlockRate: options.maxBlockRate, cooldownMs: options.cooldownMs, logger: options.logger, ...(options.now && { now: options.now }) });
    for (const code of MARKETPLACE_CODES) this.routesOf(code);
  }

  /** The identities of SOURCE_PROXIES / SOURCE_PROXIES_<CODE>, SOURCE_PROXY_MAX_BLOCK_RATE and SOURCE_PROXY_COOLDOWN. */
  static fromConfig(config: Config, logger: Logger): SourceIdentities {
    return new SourceIdentities({
      proxiesFor: (code) => sourceProxiesFor(config, code),
      maxBlockRate: config.SOURCE_PROXY_MAX_BLOCK_RATE,
      cooldownMs: config.SOURCE_PROXY_COOLDOWN,
      logger,
    });
  }

  /**
   * An identity for the next attempt of a read of `marketplace`: a proxy out of quarantine (the
   * next in round-robin order for a read's first attempt; for a retry, one the read has not used
   * yet when there is one, at random), and a usable session of it the read has not used yet (a new
   * one when needed).
   * @throws NoSourceIdentityError when every proxy of the marketplace is quarantined.
   */
  async checkout(marketplace: Marketplace, avoid: Avoid): Promise<IdentityLease> {
    const routes = this.routesOf(marketplace.code);
    let proxy: SourceProxy | undefined;
    if (routes.proxies.length > 0) {
      const open = routes.proxies.filter((p) => !this.health.isQuarantined(p.label, marketplace.code));
      if (open.length === 0) {
        throw new NoSourceIdentityError(`every proxy of marketplace ${marketplace.code} is quarantined (${routes.proxies.map((p) => p.label).join(', ')})`);
      }
      const fresh = open.filter((p) => !avoid.proxies.has(p.label));
      // A read's first attempt takes the rotation's next proxy; a retry any other one, leaving the
      // rotation to first attempts (else, with two proxies, every read would start on the same one).
      proxy = avoid.proxies.size === 0 ? await this.nextProxy(routes, open) : pick(fresh.length > 0 ? fresh : open);
    }
    const label = proxy?.label ?? DIRECT;
    const pool = await this.poolOf(marketplace, label);
    let session = await pool.getSession();
    for (let tries = 1; tries < SESSIONS_PER_PROXY && avoid.sessions.has(session.id); tries++) session = await pool.getSession();
    if (avoid.sessions.has(session.id)) session = await this.newSession(pool);
    return this.lease(marketplace, session, proxy);
  }

  /** Ends every session pool. */
  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map(async (pool) => (await pool.catch(() => undefined))?.teardown({ persistState: false })));
  }

  private lease(marketplace: Marketplace, session: Session, proxy: SourceProxy | undefined): IdentityLease {
    const label = proxy?.label ?? DIRECT;
    let settled = false;
    return {
      identity: new SessionIdentity(session, proxy),
      sessionId: session.id,
      proxy: label,
      settle: (outcome, ms, setCookies = [], url) => {
        if (settled) return;
        settled = true;
        if (readThePage(outcome)) session.markGood();
        else if (outcome === 'unavailable') session.markBad();
        else session.retire();
        if (url) {
          for (const cookie of setCookies) {
            try {
              session.setCookie(cookie, url);
            } catch {
              // A cookie for another host, or malformed: the browser would have dropped it too.
            }
          }
        }
        sourceProxyReads.inc({ proxy: label, marketplace: marketplace.code, outcome });
        sourceProxyLatency.observe({ proxy: label }, ms / 1000);
        // Reads without a proxy are never quarantined: there would be nothing left to read with.
        if (proxy) this.health.record(label, marketplace.code, !readThePage(outcome));
      },
    };
  }

  /** The next proxy of the rotation that is among `choices` (Crawlee's round-robin; at most one turn). */
  private async nextProxy(routes: Routes, choices: readonly SourceProxy[]): Promise<SourceProxy> {
    const wanted = new Set(choices);
    for (let i = 0; i < routes.proxies.length; i++) {
      const info: ProxyInfo | undefined = await routes.rotation!.newProxyInfo();
      const proxy = info ? routes.byUrl.get(info.url) : undefined;
      if (proxy && wanted.has(proxy)) return proxy;
    }
    return choices[0]!;
  }

  private routesOf(code: MarketplaceCode): Routes {
    let routes = this.routes.get(code);
    if (!routes) {
      const proxies = this.options.proxiesFor(code);
      routes = { proxies, rotation: proxies.length > 0 ? rotationOf(proxies, code) : undefined, byUrl: new Map(proxies.map((p) => [p.revealUrl(), p])) };
      this.routes.set(code, routes);
    }
    return routes;
  }

  private poolOf(marketplace: Marketplace, proxy: string): Promise<SessionPool> {
    const key = `${marketplace.code} ${proxy}`;
    let pool = this.pools.get(key);
    if (!pool) {
      pool = SessionPool.open({
        maxPoolSize: SESSIONS_PER_PROXY,
        persistenceOptions: { enable: false },
        log: silent,
        createSessionFunction: (sessionPool, options) => new Session({
          ...options?.sessionOptions,
          sessionPool,
          log: silent,
          userData: { fingerprint: marketplaceFingerprint(marketplace) },
        }),
      }, this.crawlee);
      this.pools.set(key, pool);
      pool.catch(() => this.pools.delete(key));
    }
    return pool;
  }

  /** A new session in `pool`, beside the ones a read has used already. */
  private async newSession(pool: SessionPool): Promise<Session> {
    const id = `session_${Math.random().toString(36).slice(2, 12)}`;
    await pool.addSession({ id });
    return (await pool.getSession(id))!;
  }
}
