/**
 * Quarantine of proxies that are mostly blocked (operations-contract.md SOURCE_PROXY_MAX_BLOCK_RATE,
 * SOURCE_PROXY_COOLDOWN). Kept per proxy and marketplace: a marketplace blocks an address on its
 * own, so a proxy blocked by one may still serve the others.
 *
 * Each (proxy, marketplace) keeps the outcomes of its last {@link HEALTH_WINDOW} reads; a read that
 * met a block or failed (proxy error, timeout, network) counts against it, a read with a page
 * (a product or a not-found page) does not.
 * Once at least {@link MIN_READS_TO_JUDGE} reads are in the window and the share against it
 * passes the threshold, the proxy is out of that marketplace's rotation for the cool-down,
 * logged once; it comes back with an empty window.
 */
import type { Logger } from 'pino';
import { sourceProxyQuarantined, sourceProxyQuarantines } from '../../core/metrics.js';

/** Reads per proxy and marketplace the block rate is taken over (the "last 20 reads"). */
export const HEALTH_WINDOW = 20;

/** Fewest reads in the window before a proxy is judged: one early block is not a rate. */
export const MIN_READS_TO_JUDGE = 5;

/** Options of {@link ProxyHealth}. */
export interface ProxyHealthOptions {
  /** Share (0..1) of the window against the proxy above which it is quarantined. */
  maxBlockRate: number;
  /** Length of a quarantine, ms. */
  cooldownMs: number;
  logger: Logger;
  /** Clock (ms); tests move it. */
  now?: () => number;
}

interface Window {
  /** Last outcomes, oldest first: true = against the proxy. */
  outcomes: boolean[];
  /** Quarantined until this time (ms), 0 when in rotation. */
  until: number;
}

/** The recent outcomes and quarantines of every proxy, per marketplace. */
export class ProxyHealth {
  private readonly windows = new Map<string, Window>();
  private readonly now: () => number;

  constructor(private readonly options: ProxyHealthOptions) {
    this.now = options.now ?? Date.now;
  }

  /** True while `proxy` is quarantined for `marketplace`; a quarantine that ended is lifted here (and logged). */
  isQuarantined(proxy: string, marketplace: string): boolean {
    const window = this.windows.get(key(proxy, marketplace));
    if (!window || window.until === 0) return false;
    if (this.now() < window.until) return true;
    window.until = 0;
    window.outcomes = [];
    sourceProxyQuarantined.set({ proxy, marketplace }, 0);
    this.options.logger.info({ proxy, marketplace }, 'proxy back in rotation after its quarantine');
    return false;
  }

  /**
   * Records one read through `proxy` for `marketplace`; `against` when it was blocked or failed at
   * the proxy. May quarantine the proxy (logged once, counted in `retail_source_proxy_quarantines_total`).
   * @returns true when this read put the proxy in quarantine.
   */
  record(proxy: string, marketplace: string, against: boolean): boolean {
    const k = key(proxy, marketplace);
    let window = this.windows.get(k);
    if (!window) {
      window = { outcomes: [], until: 0 };
      this.windows.set(k, window);
    }
    // Reads that finish during a quarantine do not extend it or fill the next window.
    if (window.until !== 0) return false;
    window.outcomes.push(against);
    if (window.outcomes.length > HEALTH_WINDOW) window.outcomes.shift();
    const reads = window.outcomes.length;
    const blocked = window.outcomes.filter(Boolean).length;
    if (reads < MIN_READS_TO_JUDGE || blocked / reads <= this.options.maxBlockRate) return false;
    window.until = this.now() + this.options.cooldownMs;
    sourceProxyQuarantines.inc({ proxy, marketplace });
    sourceProxyQuarantined.set({ proxy, marketplace }, 1);
    this.options.logger.warn(
      { proxy, marketplace, blocked, reads, blockRate: Math.round((blocked / reads) * 100) / 100, cooldownMs: this.options.cooldownMs },
      'proxy quarantined',
    );
    return true;
  }
}

function key(proxy: string, marketplace: string): string {
  return `${marketplace} ${proxy}`;
}
