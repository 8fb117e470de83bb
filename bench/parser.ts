/**
 * Parser benchmark: `npx tsx bench/parser.ts [rounds]`.
 * Over the shared saved pages (../shared/fixtures/pages): median and p95 ms per page of
 * `parseProductPage` vs parse5's bare `parse(html)` of the same pages in the same run, their ratio,
 * and RSS after 100 and after 1,000 parses.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'parse5';
import { marketplaceByDomainSuffix, resolveMarketplace } from '../core/marketplaces.js';
import { decodePage, parseProductPage } from '../worker/parser/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pagesDir = path.resolve(repoRoot, '../shared/fixtures/pages');
if (!existsSync(pagesDir)) {
  console.log(`no saved pages at ${pagesDir}; nothing to benchmark`);
  process.exit(0);
}

const rounds = Number(process.argv[2] ?? 3);
const pages = readdirSync(pagesDir)
  .filter((f) => f.endsWith('.html'))
  .sort()
  .map((f) => {
    const suffix = f.slice(0, f.indexOf('_'));
    return { file: f, html: decodePage(readFileSync(path.join(pagesDir, f))), mp: marketplaceByDomainSuffix(suffix) ?? resolveMarketplace('com')! };
  });

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const mb = (): number => Math.round(process.memoryUsage().rss / 1e6);

// warm-up
for (const p of pages) {
  parseProductPage(p.html, p.mp);
  parse(p.html);
}

const ours: number[] = [];
const bare: number[] = [];
const ratios: number[] = [];
for (let r = 0; r < rounds; r++) {
  for (const p of pages) {
    let t = performance.now();
    parse(p.html);
    const b = performance.now() - t;
    t = performance.now();
    parseProductPage(p.html, p.mp);
    const o = performance.now() - t;
    bare.push(b);
    ours.push(o);
    ratios.push(o / b);
  }
}

const row = (name: string, xs: number[]): string =>
  `${name.padEnd(22)} ${quantile(xs, 0.5).toFixed(1).padStart(8)} ${quantile(xs, 0.95).toFixed(1).padStart(8)}`;
console.log(`pages: ${pages.length}, rounds: ${rounds}, samples: ${ours.length}`);
console.log(`${'ms per page'.padEnd(22)} ${'median'.padStart(8)} ${'p95'.padStart(8)}`);
console.log(row('parseProductPage', ours));
console.log(row('parse5 parse(html)', bare));
console.log(`ratio of medians: ${(quantile(ours, 0.5) / quantile(bare, 0.5)).toFixed(2)}x; median per-page ratio: ${quantile(ratios, 0.5).toFixed(2)}x`);

const gc = (globalThis as { gc?: () => void }).gc;
let n = 0;
const rss: Record<number, number> = {};
const start = mb();
let aborted = '';
while (n < 1000) {
  if (process.memoryUsage().heapUsed > 2.5e9) {
    aborted = ` -- ABORTED at ${n} parses: heap ${Math.round(process.memoryUsage().heapUsed / 1e6)} MB (memory is not flat yet)`;
    break;
  }
  const p = pages[n % pages.length]!;
  parseProductPage(p.html, p.mp);
  n++;
  if (n === 100 || n === 1000) {
    gc?.();
    rss[n] = mb();
  }
}
console.log(
  `RSS MB: start ${start}, after 100 parses ${rss[100] ?? '-'}, after 1000 parses ${rss[1000] ?? '-'}${aborted}${gc ? '' : ' (run with --expose-gc for post-GC numbers)'}`,
);
