/**
 * Parser benchmark: `npm run bench:parser` (= `tsx bench/parser.ts [rounds]`, default 5 rounds).
 *
 * Over every saved page of the development corpus (scripts/golden/dev-corpus.ts), in one run:
 * - speed: every round parses every page with parse5's bare `parse(html)` and with `parseProductPage`
 *   (the order of the two alternates between rounds); a warm-up round is left out. Printed: per page
 *   the median of each and their ratio, then the median and p95 over all samples of each. Target:
 *   median(parseProductPage) <= 1.0 x median(parse5).
 *   With `BENCH_PARSER_REFERENCE=<path to another checkout's worker/parser/index.ts>` (e.g. main's, for
 *   a before/after), that parser is timed in the same rounds too, and its ratio printed beside ours.
 * - memory: RSS after 100 and after 1,000 further parses cycling through the pages, each read after a
 *   full GC and a short idle wait, lowest of three readings (V8 returns freed pages to the system
 *   lazily; without this the reading swings with whatever the last pages allocated). Heap used is
 *   printed beside it.
 *   Target: RSS(1000) <= 1.5 x RSS(100).
 * - search pages: the same speed and memory measures for `parseSearchPage` over the 30 saved search
 *   result pages (../shared/fixtures/search), printed after the product figures with their own labels
 *   ("search speed", "search memory"). Same targets.
 * `BENCH_PARSER_PART=product` or `=search` runs one of the two.
 * Nothing is cached between iterations: every call parses the page string from scratch.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parse } from 'parse5';
import { decodePage, parseProductPage } from '../worker/parser/index.js';
import { havePages, pagesDir, readCorpus } from '../scripts/golden/dev-corpus.js';
import { haveSearchPages, searchPages } from '../scripts/golden/search-corpus.js';
import { parseSearchPage } from '../worker/parser/search/index.js';

const SPEED_TARGET = 1.0;
const RSS_TARGET = 1.5;

const benchPart = process.env.BENCH_PARSER_PART ?? 'all';
const runProduct = benchPart !== 'search';
if (!havePages && runProduct) {
  console.log(`no saved pages at ${pagesDir}; nothing to benchmark`);
  process.exit(0);
}

const rounds = Math.max(1, Number(process.argv[2] ?? 5));
/** Another build of the parser timed in the same rounds (a before/after), when asked for. */
const referencePath = process.env.BENCH_PARSER_REFERENCE;
const reference = referencePath
  ? ((await import(path.resolve(referencePath))) as { parseProductPage: typeof parseProductPage }).parseProductPage
  : null;
const pages = runProduct
  ? readCorpus()
      .sort((a, b) => (a.file < b.file ? -1 : 1))
      .map((r) => ({ file: r.file, html: decodePage(readFileSync(r.path)), mp: r.marketplace }))
  : [];

/** A full GC (global `gc` when node runs with --expose-gc, else enabled at run time). */
const gc: () => void =
  (globalThis as { gc?: () => void }).gc ??
  (() => {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  })();

const quantile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const mb = (bytes: number): number => Math.round(bytes / 1e6);
/**
 * Memory after a full GC and an idle moment, so RSS shows what is retained rather than transient: the
 * lowest of three such readings (what is retained is in every reading; a transient peak is not).
 */
async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  let best: NodeJS.MemoryUsage | null = null;
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 250));
    gc();
    const m = process.memoryUsage();
    if (!best || m.rss < best.rss) best = m;
  }
  return best!;
}

/** Keeps every result alive until it is looked at, so no call can be skipped. */
let sink = 0;
const consume = (v: unknown): void => {
  sink += v && typeof v === 'object' ? 1 : 0;
};

if (runProduct) await benchProduct();
if (benchPart !== 'product') await benchSearch();

/**
 * Times `ours` and parse5's bare parse on every page for `rounds` rounds, alternating which runs
 * first each round (so neither always meets a warm cache), and `reference` (if given) before both.
 * Returns the samples per page, in ms.
 */
function timeAlternating<P extends { html: string }>(
  list: readonly P[], ours: (p: P) => unknown, reference?: (p: P) => unknown,
): { ours: number[][]; bare: number[][]; ref: number[][] } {
  const samples = { ours: list.map((): number[] => []), bare: list.map((): number[] => []), ref: list.map((): number[] => []) };
  const timed = (into: number[], run: () => unknown): void => {
    const t = performance.now();
    consume(run());
    into.push(performance.now() - t);
  };
  for (let r = 0; r < rounds; r++) {
    list.forEach((p, i) => {
      if (reference) timed(samples.ref[i]!, () => reference(p));
      const runBare = (): void => timed(samples.bare[i]!, () => parse(p.html));
      const runOurs = (): void => timed(samples.ours[i]!, () => ours(p));
      if (r % 2 === 0) {
        runBare();
        runOurs();
      } else {
        runOurs();
        runBare();
      }
    });
  }
  return samples;
}

/** The product pages: speed against parse5 and memory over 1,000 parses (see the module comment). */
async function benchProduct(): Promise<void> {
  // warm-up (not measured)
  for (const p of pages) {
    consume(parseProductPage(p.html, p.mp));
    consume(parse(p.html));
    if (reference) consume(reference(p.html, p.mp));
  }

  const { ours, bare, ref } = timeAlternating(pages, (p) => parseProductPage(p.html, p.mp), reference ? (p) => reference(p.html, p.mp) : undefined);

  const f1 = (x: number): string => x.toFixed(1).padStart(8);
  const width = Math.max(...pages.map((p) => p.file.length));
  console.log(`pages: ${pages.length}, rounds: ${rounds} (+1 warm-up), samples: ${pages.length * rounds} each`);
  console.log(`${'page (median ms)'.padEnd(width)} ${'ours'.padStart(8)} ${'parse5'.padStart(8)} ${'ratio'.padStart(7)}`);
  pages.forEach((p, i) => {
    const o = quantile(ours[i]!, 0.5);
    const b = quantile(bare[i]!, 0.5);
    console.log(`${p.file.padEnd(width)} ${f1(o)} ${f1(b)} ${(o / b).toFixed(2).padStart(6)}x`);
  });
  const allOurs = ours.flat();
  const allBare = bare.flat();
  const ratio = quantile(allOurs, 0.5) / quantile(allBare, 0.5);
  console.log('');
  console.log(`${'ms per page, all samples'.padEnd(26)} ${'median'.padStart(8)} ${'p95'.padStart(8)}`);
  console.log(`${'parseProductPage'.padEnd(26)} ${f1(quantile(allOurs, 0.5))} ${f1(quantile(allOurs, 0.95))}`);
  console.log(`${'parse5 parse(html)'.padEnd(26)} ${f1(quantile(allBare, 0.5))} ${f1(quantile(allBare, 0.95))}`);
  if (reference) {
    const allRef = ref.flat();
    console.log(`${'reference parser'.padEnd(26)} ${f1(quantile(allRef, 0.5))} ${f1(quantile(allRef, 0.95))}  (${referencePath})`);
    console.log(`reference: median ratio to parse5 ${(quantile(allRef, 0.5) / quantile(allBare, 0.5)).toFixed(2)}x`);
  }
  console.log(
    `speed: ratio of medians ${ratio.toFixed(2)}x (target <= ${SPEED_TARGET}x): ${ratio <= SPEED_TARGET ? 'PASS' : 'FAIL'}` +
      `; p95 ratio ${(quantile(allOurs, 0.95) / quantile(allBare, 0.95)).toFixed(2)}x`,
  );

  // memory: 1,000 parses cycling through the pages
  const rss: Record<number, number> = {};
  const heap: Record<number, number> = {};
  const startRss = mb((await settledMemory()).rss);
  let aborted = '';
  for (let n = 1; n <= 1000; n++) {
    const p = pages[(n - 1) % pages.length]!;
    consume(parseProductPage(p.html, p.mp));
    if (n === 100 || n === 1000) {
      const m = await settledMemory();
      rss[n] = mb(m.rss);
      heap[n] = mb(m.heapUsed);
    }
    if (process.memoryUsage().heapUsed > 2.5e9) {
      aborted = ` -- ABORTED at ${n} parses: heap over 2.5 GB`;
      break;
    }
  }
  const rssOk = rss[100] !== undefined && rss[1000] !== undefined && rss[1000] <= RSS_TARGET * rss[100];
  console.log(
    `memory: RSS MB start ${startRss}, after 100 parses ${rss[100] ?? '-'} (heap ${heap[100] ?? '-'}), ` +
      `after 1000 parses ${rss[1000] ?? '-'} (heap ${heap[1000] ?? '-'})${aborted}`,
  );
  console.log(
    `memory: RSS1000 / RSS100 = ${rss[100] && rss[1000] ? (rss[1000] / rss[100]).toFixed(2) : '-'}x (target <= ${RSS_TARGET}x): ${rssOk ? 'PASS' : 'FAIL'}`,
  );
}

/** The search pages: the same measures for `parseSearchPage` (see the module comment). */
async function benchSearch(): Promise<void> {
  if (!haveSearchPages) {
    console.log('search: no saved search pages; skipped');
    return;
  }
  const spages = searchPages().map((p) => ({ file: p.file, html: decodePage(readFileSync(p.path)), mp: p.marketplace }));
  for (const p of spages) {
    consume(parseSearchPage(p.html, p.mp));
    consume(parse(p.html));
  }
  const { ours, bare } = timeAlternating(spages, (p) => parseSearchPage(p.html, p.mp));
  const f1 = (x: number): string => x.toFixed(1).padStart(8);
  const width = Math.max(...spages.map((p) => p.file.length));
  console.log('');
  console.log(`search pages: ${spages.length}, rounds: ${rounds} (+1 warm-up), samples: ${spages.length * rounds} each`);
  console.log(`${'search page (median ms)'.padEnd(width)} ${'ours'.padStart(8)} ${'parse5'.padStart(8)} ${'ratio'.padStart(7)}`);
  spages.forEach((p, i) => {
    const o = quantile(ours[i]!, 0.5);
    const b = quantile(bare[i]!, 0.5);
    console.log(`${p.file.padEnd(width)} ${f1(o)} ${f1(b)} ${(o / b).toFixed(2).padStart(6)}x`);
  });
  const allOurs = ours.flat();
  const allBare = bare.flat();
  const ratio = quantile(allOurs, 0.5) / quantile(allBare, 0.5);
  console.log(`${'ms per search page'.padEnd(26)} ${'median'.padStart(8)} ${'p95'.padStart(8)}`);
  console.log(`${'parseSearchPage'.padEnd(26)} ${f1(quantile(allOurs, 0.5))} ${f1(quantile(allOurs, 0.95))}`);
  console.log(`${'parse5 parse(search html)'.padEnd(26)} ${f1(quantile(allBare, 0.5))} ${f1(quantile(allBare, 0.95))}`);
  console.log(
    `search speed: ratio of medians ${ratio.toFixed(2)}x (target <= ${SPEED_TARGET}x): ${ratio <= SPEED_TARGET ? 'PASS' : 'FAIL'}` +
      `; p95 ratio ${(quantile(allOurs, 0.95) / quantile(allBare, 0.95)).toFixed(2)}x`,
  );
  const rss: Record<number, number> = {};
  const heap: Record<number, number> = {};
  const startRss = mb((await settledMemory()).rss);
  for (let n = 1; n <= 1000; n++) {
    const p = spages[(n - 1) % spages.length]!;
    consume(parseSearchPage(p.html, p.mp));
    if (n === 100 || n === 1000) {
      const m = await settledMemory();
      rss[n] = mb(m.rss);
      heap[n] = mb(m.heapUsed);
    }
  }
  const ok = rss[1000]! <= RSS_TARGET * rss[100]!;
  console.log(`search memory: RSS MB start ${startRss}, after 100 parses ${rss[100]} (heap ${heap[100]}), after 1000 parses ${rss[1000]} (heap ${heap[1000]})`);
  console.log(`search memory: RSS1000 / RSS100 = ${(rss[1000]! / rss[100]!).toFixed(2)}x (target <= ${RSS_TARGET}x): ${ok ? 'PASS' : 'FAIL'}`);
}

if (sink === 0) console.log('(no results)');
