/**
 * Reads through outbound proxies: `npm run bench -- proxies` (once; no database: the read is
 * measured, not its storage). A local Chromium (the grid, BROWSER_MAX_PAGES 4) reads the replay
 * folder's product pages through three proxy-chain forward proxies on loopback that answer a
 * share of requests with a robot check (0 %, 30 %, 60 %, spread evenly), with the default
 * SOURCE_ATTEMPTS (3) and quarantine (above 0.5 of the last 20, 10 minutes), beside reads without
 * a proxy (as before this change, and with sessions). The scenarios run side by side in one run,
 * in interleaved rounds, BENCH_PROXY_READS (default 60) reads each, 4 at a time. For each: the
 * share of reads ending with a page (product or not found), the median and p95 time of a read
 * (every attempt, parse included), attempts per read, and the median added over the same proxies
 * with nothing blocked. Also: the resident memory the identity libraries add (Crawlee, fingerprints).
 */
import fs from 'node:fs';
import path from 'node:path';
import { resolveMarketplace } from '../core/marketplaces.js';
import { parseProxyList } from '../core/proxy-list.js';
import { createLogger } from '../core/logger.js';
import { startReplayServer } from '../replay/server.js';
import { startForwardProxy, type ForwardProxy } from '../scripts/forward-proxies.js';
import { BrowserGrid } from '../worker/browser/browser-grid.js';
import { resolveChromePath } from '../worker/browser/chrome-path.js';
import { decodePage, parseProductPage } from '../worker/parser/index.js';
import { awaitQuiet, cpuShare, cpuSnapshot, cpuText, envInt, p50, p95, printHeader, Results } from './machine.js';
import { replayDir, replayProducts, repoRoot } from './pages.js';

const READS = envInt('BENCH_PROXY_READS', 60);
const SLOTS = 4;
const ROUND = 12;

interface Scenario {
  name: string;
  /** Share of requests each proxy answers with a robot check; undefined → no proxy. */
  blocked?: number;
  /** Reads with identities (sessions); false → the grid's own user agent, as before. */
  sessions: boolean;
  maxBlockRate?: number;
  times: number[];
  withData: number;
  attempts: number;
  read?: (asin: string, marketplace: string) => Promise<{ data: boolean; attempts: number }>;
}

const scenarios: Scenario[] = [
  { name: 'direct, as before (no session)', sessions: false },
  { name: 'direct, sessions', sessions: true },
  { name: '3 proxies, 0 % blocked', sessions: true, blocked: 0 },
  { name: '3 proxies, 30 % blocked', sessions: true, blocked: 0.3 },
  { name: '3 proxies, 60 % blocked', sessions: true, blocked: 0.6 },
  { name: '3 proxies, 60 % blocked, no quarantine', sessions: true, blocked: 0.6, maxBlockRate: 1 },
].map((s) => ({ ...s, times: [], withData: 0, attempts: 0 }));

/** Decides "block" for `share` of the calls, spread evenly (call k blocks when ⌊(k+1)·share⌋ > ⌊k·share⌋). */
function evenly(share: number): () => boolean {
  let k = 0;
  return () => {
    const blocks = Math.floor((k + 1) * share) > Math.floor(k * share);
    k += 1;
    return blocks;
  };
}

printHeader('reads through outbound proxies (bench/proxies.ts)');
const dir = replayDir();
const captchaFile = [path.join(dir, 'com_captcha_2019.html'), path.join(repoRoot, 'test/fixtures/html/captcha.html')].find((f) => fs.existsSync(f))!;
const captcha = fs.readFileSync(captchaFile);
const products = (await replayProducts(dir)).filter((p) => p.marketplace === 'com');
console.log(`pages:    ${products.length} com product pages of ${dir}; robot check ${path.basename(captchaFile)}; ${READS} reads per scenario, ${SLOTS} at a time`);
const replay = await startReplayServer({ dir, port: 0 });
const grid = await BrowserGrid.start({ wsEndpoints: [], chromePath: resolveChromePath(process.env.CHROME_PATH), maxPages: SLOTS, navTimeoutMs: 30_000, sourceOrigin: replay.url });
const logger = createLogger('silent');
const proxies: ForwardProxy[] = [];
const results = new Results('proxies', 'none');
let failed = false;
try {
  const plain = scenarios[0]!;
  plain.read = async (asin, code) => {
    const marketplace = resolveMarketplace(code)!;
    const page = await grid.read({ marketplace, asin });
    const kind = parseProductPage(decodePage(page.bytes, page.contentType), marketplace).kind;
    page.done?.();
    return { data: kind === 'product' || kind === 'not_found', attempts: 1 };
  };
  // Warm-up of the plain read (Chromium's first contexts, the parser), then the identity modules,
  // loaded only now to measure what they add to the worker's memory.
  for (let i = 0; i < SLOTS; i++) await plain.read(products[i % products.length]!.asin, 'com');
  const rssBefore = process.memoryUsage().rss;
  const { SourceIdentities } = await import('../worker/identity/source-identities.js');
  const { readWithIdentities } = await import('../worker/identity/identity-reads.js');
  for (const scenario of scenarios.slice(1)) {
    let list: ReturnType<typeof parseProxyList> = [];
    if (scenario.blocked !== undefined) {
      const started = await Promise.all([0, 1, 2].map(() => startForwardProxy({ blockPage: captcha, block: evenly(scenario.blocked!) })));
      proxies.push(...started);
      list = parseProxyList(started.map((p) => p.url).join(','));
    }
    const identities = new SourceIdentities({ proxiesFor: () => list, maxBlockRate: scenario.maxBlockRate ?? 0.5, cooldownMs: 600_000, logger });
    scenario.read = async (asin, code) => {
      try {
        const read = await readWithIdentities({ source: grid, identities, attempts: 3, logger }, { marketplace: resolveMarketplace(code)!, asin });
        read.page.done?.();
        return { data: true, attempts: read.attempts.length };
      } catch (error) {
        const attempts = (error as { attempts?: unknown[] }).attempts;
        if (!attempts) throw error;
        return { data: false, attempts: attempts.length };
      }
    };
  }
  // Warm-up of the sessions (the fingerprint network's first draw) without a proxy, where nothing is blocked.
  for (let i = 0; i < SLOTS; i++) await scenarios[1]!.read!(products[i % products.length]!.asin, 'com');
  const rssAfter = process.memoryUsage().rss;

  await awaitQuiet('proxies');
  const cpuBefore = cpuSnapshot();
  let next = 0;
  for (let done = 0; done < READS; done += ROUND) {
    for (const scenario of scenarios) {
      const batch = Array.from({ length: Math.min(ROUND, READS - done) }, () => products[next++ % products.length]!);
      let i = 0;
      await Promise.all(Array.from({ length: SLOTS }, async () => {
        while (i < batch.length) {
          const page = batch[i++]!;
          const started = performance.now();
          const read = await scenario.read!(page.asin, page.marketplace);
          scenario.times.push(performance.now() - started);
          scenario.withData += read.data ? 1 : 0;
          scenario.attempts += read.attempts;
        }
      }));
    }
  }

  const cpu = cpuShare(cpuBefore, cpuSnapshot());
  console.log(`\n  ${cpuText(cpu)} (over all scenarios: they ran interleaved)`);
  const baseline = p50(scenarios.find((s) => s.name === '3 proxies, 0 % blocked')!.times);
  const direct = p50(scenarios[0]!.times);
  for (const s of scenarios) {
    console.log(`\n  ${s.name}`);
    results.add(`${s.name}: reads ending with data`, (100 * s.withData) / s.times.length, '%', { cpu });
    results.add(`${s.name}: read p50`, p50(s.times), 'ms', { cpu });
    results.add(`${s.name}: read p95`, p95(s.times), 'ms', { cpu });
    results.add(`${s.name}: attempts per read`, s.attempts / s.times.length, '', { digits: 2, cpu });
    if (s.blocked !== undefined && s.blocked > 0) results.add(`${s.name}: added p50 vs 0 % blocked`, p50(s.times) - baseline, 'ms', { cpu });
    if (s.blocked === 0 || s.name === 'direct, sessions') results.add(`${s.name}: added p50 vs direct as before`, p50(s.times) - direct, 'ms', { cpu });
  }
  console.log('');
  results.add('RSS added by the identity libraries', (rssAfter - rssBefore) / 2 ** 20, 'MiB', { note: 'Crawlee, fingerprint-generator/-injector, after their first reads' });
  console.log(`\n  proxy requests answered: ${proxies.map((p) => `${p.label} ${p.forwarded.length} forwarded / ${p.blocked.length} blocked`).join('; ')}`);
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  await grid.close();
  await replay.close();
  await Promise.all(proxies.map((p) => p.close()));
}
process.exit(failed ? 1 : 0);
