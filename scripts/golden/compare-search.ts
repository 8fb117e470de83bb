/**
 * Golden labels of the saved search result pages (../shared/fixtures/search, labelled under
 * ../shared/docs/search-page-contract.md): compares two label folders page by page, item by item
 * (matched by position), field by field, and checks every label against the contract's invariants.
 *
 *   npx tsx scripts/golden/compare-search.ts [--left DIR] [--right DIR] [--check DIR]...
 *
 * Defaults: left = test/golden/search-labels/a, right = test/golden/search-labels/b; the
 * invariants are checked on both and on the reconciled set test/golden/search. Exits 1 when the
 * reconciled set (or a folder named by --check) breaks an invariant or misses a page.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';
import { marketplaceByDomainSuffix, type Marketplace } from '../../core/marketplaces.js';
import { SEARCH_ITEM_FIELDS, type SearchItem } from '../../core/search.js';
import { repoRoot } from './dev-corpus.js';

export const searchPagesDir = path.resolve(repoRoot, '../shared/fixtures/search');
export const labellerDirs = {
  a: path.join(repoRoot, 'test/golden/search-labels/a'),
  b: path.join(repoRoot, 'test/golden/search-labels/b'),
} as const;
/** The reconciled golden set the search parser is tested against. */
export const searchGoldenDir = path.join(repoRoot, 'test/golden/search');

/** The page-level fields of a label, compared like item fields. */
export const PAGE_FIELDS = ['observation', 'status', 'keyword', 'total_results', 'results_text'] as const;
type PageField = (typeof PAGE_FIELDS)[number];
type ItemField = (typeof SEARCH_ITEM_FIELDS)[number];
export type LabelField = PageField | ItemField;

/**
 * One label file: the SearchResults fields a page yields (no url, observed_at or quality: those do
 * not come from the page). `observation: false` marks a page that is not an observation (robot
 * check, error page): then `status` and the page values are null and `items` is empty.
 * Labeller folders may add `unclear` (notes); the reconciled set keeps those in DISAGREEMENTS.md.
 */
export interface SearchLabel {
  page: string;
  observation: boolean;
  status: 'ok' | 'no_results' | null;
  keyword: string | null;
  total_results: number | null;
  results_text: string | null;
  items: SearchItem[];
  unclear?: string[];
}

/** Keys of a reconciled label, in file order. */
export const LABEL_KEYS = ['page', 'observation', 'status', 'keyword', 'total_results', 'results_text', 'items'] as const;

/** The labels of a folder by page stem (`<page>.json`, page = the fixture's file name). */
export function readLabels(dir: string): Map<string, SearchLabel> {
  const out = new Map<string, SearchLabel>();
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    out.set(f.replace(/\.json$/, ''), JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as SearchLabel);
  }
  return out;
}

/** The saved search pages by stem, with their marketplace (MANIFEST.tsv `file` and `marketplace` columns). */
export function readSearchManifest(): Map<string, Marketplace> {
  const out = new Map<string, Marketplace>();
  const manifest = path.join(searchPagesDir, 'MANIFEST.tsv');
  if (!existsSync(manifest)) return out;
  const [head, ...lines] = readFileSync(manifest, 'utf8').trim().split('\n');
  const cols = head!.split('\t');
  const fileCol = cols.indexOf('file');
  const mpCol = cols.indexOf('marketplace');
  for (const line of lines) {
    const cells = line.split('\t');
    const file = cells[fileCol] ?? '';
    const marketplace = marketplaceByDomainSuffix(cells[mpCol] ?? '');
    if (!marketplace) throw new Error(`${file}: unknown marketplace ${cells[mpCol]}`);
    out.set(file.replace(/\.html$/, ''), marketplace);
  }
  return out;
}

/** One value that differs between the two folders; `position` is null for a page-level field. */
export interface ValueDiff {
  page: string;
  position: number | null;
  asin: string | null;
  field: LabelField;
  left: unknown;
  right: unknown;
}

export interface Comparison {
  /** Per field: values equal and values compared. */
  perField: Record<LabelField, { equal: number; compared: number }>;
  diffs: ValueDiff[];
  /** Pages whose item counts differ (items beyond the shorter list are not compared). */
  countDiffs: { page: string; left: number; right: number }[];
  /** Pages whose ASIN sequences differ, with the first position that differs. */
  asinDiffs: { page: string; firstPosition: number; left: string[]; right: string[] }[];
  onlyLeft: string[];
  onlyRight: string[];
}

/** Compares every page both folders label: page fields, then items matched by position, every field by deep equality. */
export function compare(left: Map<string, SearchLabel>, right: Map<string, SearchLabel>): Comparison {
  const fields: LabelField[] = [...PAGE_FIELDS, ...SEARCH_ITEM_FIELDS];
  const perField = Object.fromEntries(fields.map((f) => [f, { equal: 0, compared: 0 }])) as Comparison['perField'];
  const out: Comparison = { perField, diffs: [], countDiffs: [], asinDiffs: [], onlyLeft: [], onlyRight: [] };
  const count = (page: string, position: number | null, asin: string | null, field: LabelField, l: unknown, r: unknown): void => {
    perField[field].compared++;
    if (isDeepStrictEqual(l, r)) perField[field].equal++;
    else out.diffs.push({ page, position, asin, field, left: l, right: r });
  };
  for (const page of [...left.keys()].sort()) {
    const l = left.get(page)!;
    const r = right.get(page);
    if (!r) {
      out.onlyLeft.push(page);
      continue;
    }
    for (const f of PAGE_FIELDS) count(page, null, null, f, l[f], r[f]);
    const li = l.items ?? [];
    const ri = r.items ?? [];
    if (li.length !== ri.length) out.countDiffs.push({ page, left: li.length, right: ri.length });
    const la = li.map((i) => i.asin);
    const ra = ri.map((i) => i.asin);
    if (!isDeepStrictEqual(la, ra)) {
      const first = la.findIndex((a, i) => a !== ra[i]);
      out.asinDiffs.push({ page, firstPosition: (first === -1 ? Math.min(la.length, ra.length) : first) + 1, left: la, right: ra });
    }
    for (let i = 0; i < Math.min(li.length, ri.length); i++) {
      for (const f of SEARCH_ITEM_FIELDS) count(page, i + 1, li[i]!.asin, f, li[i]![f], ri[i]![f]);
    }
  }
  out.onlyRight = [...right.keys()].filter((p) => !left.has(p)).sort();
  return out;
}

/** Values equal / values compared over every field. */
export function agreement(c: Comparison): { equal: number; compared: number } {
  let equal = 0;
  let compared = 0;
  for (const v of Object.values(c.perField)) {
    equal += v.equal;
    compared += v.compared;
  }
  return { equal, compared };
}

// Text rules of product-page-contract.md "General rules": decoded, no direction/zero-width marks,
// whitespace collapsed, trimmed.
const textOk = (s: unknown): boolean =>
  typeof s === 'string' && s.length > 0 && s === s.trim() && !/\s{2}|[\n\t\u200e\u200f\u200b\u200c\ufeff]/.test(s);
// Money has at most two decimals (binary floats: compare within a tolerance).
const hundredths = (x: number): boolean => Math.abs(Math.round(x * 100) - x * 100) < 1e-6;
const isInt = (v: unknown, min: number): boolean => typeof v === 'number' && Number.isInteger(v) && v >= min;
const moneyOk = (v: unknown, currency: string): boolean => {
  if (v === null) return true;
  if (typeof v !== 'object' || !isDeepStrictEqual(Object.keys(v).sort(), ['amount', 'currency'])) return false;
  const m = v as { amount: unknown; currency: unknown };
  return typeof m.amount === 'number' && m.amount >= 0 && hundredths(m.amount) && m.currency === currency;
};

/** Contract invariants one item breaks (search-page-contract.md "Item fields"); empty when none. */
export function itemProblems(item: SearchItem, index: number, organicIndex: number, marketplace: Marketplace): string[] {
  const p: string[] = [];
  const keys = Object.keys(item);
  if (!isDeepStrictEqual(keys, [...SEARCH_ITEM_FIELDS])) p.push(`keys ${keys.join(',')} are not the item fields in contract order`);
  if (item.position !== index + 1) p.push(`position ${item.position}, expected ${index + 1}`);
  if (typeof item.sponsored !== 'boolean') p.push('sponsored is not a boolean');
  const wantOrganic = item.sponsored ? null : organicIndex;
  if (item.organic_position !== wantOrganic) p.push(`organic_position ${item.organic_position}, expected ${wantOrganic}`);
  if (typeof item.asin !== 'string' || !/^[A-Z0-9]{10}$/.test(item.asin)) p.push(`asin ${JSON.stringify(item.asin)} is not 10 uppercase letters/digits`);
  const url = `https://${marketplace.domain}/dp/${item.asin}`;
  if (item.url !== url) p.push(`url ${item.url}, expected ${url}`);
  for (const f of ['title', 'brand', 'coupon', 'delivery'] as const) {
    if (item[f] !== null && !textOk(item[f])) p.push(`${f} ${JSON.stringify(item[f])} breaks the text rules`);
  }
  if (item.title === null) p.push('title is null');
  if (!moneyOk(item.price, marketplace.currency)) p.push(`price ${JSON.stringify(item.price)} is not a ${marketplace.currency} amount`);
  if (!moneyOk(item.list_price, marketplace.currency)) p.push(`list_price ${JSON.stringify(item.list_price)} is not a ${marketplace.currency} amount`);
  if (item.list_price !== null && item.price === null) p.push('list_price without a price (it is the struck price of the same block)');
  else if (item.list_price !== null && item.price !== null && item.list_price.amount <= item.price.amount) p.push('list_price not above price (a struck reference price is the higher one)');
  if ((item.price === null) !== (item.prime === null)) p.push(`prime ${item.prime} with price ${JSON.stringify(item.price)} (prime is null exactly when price is)`);
  if (item.prime !== null && typeof item.prime !== 'boolean') p.push('prime is not a boolean or null');
  if (item.rating !== null && !(typeof item.rating === 'number' && item.rating >= 0 && item.rating <= 5 && Math.abs(Math.round(item.rating * 10) - item.rating * 10) < 1e-6)) {
    p.push(`rating ${item.rating} is not 0-5 in tenths`);
  }
  if (item.ratings_count !== null && !isInt(item.ratings_count, 0)) p.push(`ratings_count ${item.ratings_count} is not an integer`);
  if (item.bought_past_month !== null && !isInt(item.bought_past_month, 1)) p.push(`bought_past_month ${item.bought_past_month} is not a positive integer`);
  if (item.variants_count !== null && !isInt(item.variants_count, 1)) p.push(`variants_count ${item.variants_count} is not a positive integer`);
  if (!Array.isArray(item.badges) || !item.badges.every(textOk)) p.push(`badges ${JSON.stringify(item.badges)} is not a list of texts`);
  if (item.image_url !== null && !(typeof item.image_url === 'string' && /^https:\/\/[^\s/]+\/\S+$/.test(item.image_url))) {
    p.push(`image_url ${JSON.stringify(item.image_url)} is not an absolute https URL`);
  }
  return p;
}

/**
 * Contract invariants one label breaks; empty when none. `reconciled` also requires exactly the
 * reconciled keys (no labeller-only keys such as `unclear`).
 */
export function labelProblems(stem: string, label: SearchLabel, marketplace: Marketplace | undefined, reconciled: boolean): string[] {
  const p: string[] = [];
  if (!marketplace) return [`${stem}: no such page in ${path.relative(repoRoot, searchPagesDir)}/MANIFEST.tsv`];
  if (label.page !== `${stem}.html`) p.push(`page ${label.page}, expected ${stem}.html`);
  if (reconciled && !isDeepStrictEqual(Object.keys(label), [...LABEL_KEYS])) p.push(`keys ${Object.keys(label).join(',')}, expected ${LABEL_KEYS.join(',')}`);
  const items = label.items ?? [];
  if (label.observation === false) {
    if (items.length > 0) p.push('a page that is not an observation has items');
  } else if (label.observation === true) {
    if (label.status === 'ok' && items.length === 0) p.push('status ok without items');
    if (label.status === 'no_results' && items.length > 0) p.push('status no_results with items');
    if (label.status !== 'ok' && label.status !== 'no_results') p.push(`status ${label.status}`);
    if (label.keyword !== null && (!textOk(label.keyword))) p.push(`keyword ${JSON.stringify(label.keyword)} is not trimmed and collapsed`);
    if (label.total_results !== null && !isInt(label.total_results, 0)) p.push(`total_results ${label.total_results} is not an integer`);
    if (label.results_text !== null && !textOk(label.results_text)) p.push(`results_text ${JSON.stringify(label.results_text)} breaks the text rules`);
    if (label.results_text === null && label.total_results !== null) p.push('total_results without the line that states it');
  } else {
    p.push(`observation ${JSON.stringify(label.observation)} is not a boolean`);
  }
  let organic = 0;
  items.forEach((item, i) => {
    if (!item.sponsored) organic++;
    for (const msg of itemProblems(item, i, organic, marketplace)) p.push(`#${i + 1} ${item.asin}: ${msg}`);
  });
  return p.map((m) => `${stem}: ${m}`);
}

/** Every invariant a folder breaks, and the manifest pages it has no label for. */
export function folderProblems(labels: Map<string, SearchLabel>, manifest: Map<string, Marketplace>, reconciled: boolean): string[] {
  const out: string[] = [];
  for (const stem of manifest.keys()) if (!labels.has(stem)) out.push(`${stem}: no label`);
  for (const [stem, label] of labels) out.push(...labelProblems(stem, label, manifest.get(stem), reconciled));
  return out;
}

const cut = (v: unknown): string => {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 140 ? `${s.slice(0, 137)}...` : s;
};
const pct = (n: number, d: number): string => (d ? ((100 * n) / d).toFixed(2) : '-');

/** The agreement table (per field, then overall) and every difference, as printed. */
export function report(c: Comparison, leftName: string, rightName: string): string {
  const lines: string[] = [];
  const width = Math.max(...Object.keys(c.perField).map((f) => f.length));
  lines.push(`${'field'.padEnd(width)}  equal / compared   agreement`);
  for (const [f, v] of Object.entries(c.perField)) {
    lines.push(`${f.padEnd(width)}  ${String(v.equal).padStart(5)} / ${String(v.compared).padEnd(8)}  ${pct(v.equal, v.compared).padStart(6)}%`);
  }
  const { equal, compared } = agreement(c);
  lines.push(`overall: ${equal} / ${compared} values equal = ${pct(equal, compared)}% (${leftName} vs ${rightName}, ${c.diffs.length} differences)`);
  lines.push(`pages compared: ${c.perField.observation.compared}; only in one folder: ${c.onlyLeft.length + c.onlyRight.length}; item-count differences: ${c.countDiffs.length}; ASIN-sequence differences: ${c.asinDiffs.length}`);
  for (const p of c.onlyLeft) lines.push(`only in ${leftName}: ${p}`);
  for (const p of c.onlyRight) lines.push(`only in ${rightName}: ${p}`);
  for (const d of c.countDiffs) lines.push(`item count ${d.page}: ${leftName} ${d.left}, ${rightName} ${d.right}`);
  for (const d of c.asinDiffs) lines.push(`ASIN sequence ${d.page} differs from #${d.firstPosition}: ${leftName} ${d.left.slice(d.firstPosition - 1).join(' ')} | ${rightName} ${d.right.slice(d.firstPosition - 1).join(' ')}`);
  for (const d of c.diffs) {
    const where = d.position === null ? d.page : `${d.page} #${d.position} ${d.asin}`;
    lines.push(`  ${where} ${d.field}\n    ${leftName.padEnd(5)} ${cut(d.left)}\n    ${rightName.padEnd(5)} ${cut(d.right)}`);
  }
  return lines.join('\n');
}

function main(argv: string[]): number {
  const opt = (name: string): string[] => argv.flatMap((a, i) => (a === name && argv[i + 1] ? [path.resolve(argv[i + 1]!)] : []));
  const left = opt('--left')[0] ?? labellerDirs.a;
  const right = opt('--right')[0] ?? labellerDirs.b;
  const strict = opt('--check');
  const name = (dir: string): string => path.relative(repoRoot, dir) || dir;
  const manifest = readSearchManifest();
  if (manifest.size === 0) {
    console.error(`no saved search pages at ${searchPagesDir}`);
    return 1;
  }
  console.log(report(compare(readLabels(left), readLabels(right)), path.basename(left), path.basename(right)));
  const checked = strict.length > 0 ? strict : [left, right, searchGoldenDir];
  let failed = false;
  for (const dir of checked) {
    const mustPass = strict.length > 0 || dir === searchGoldenDir;
    if (!existsSync(dir)) {
      console.log(`\ninvariants ${name(dir)}: (no folder)`);
      failed ||= mustPass;
      continue;
    }
    const problems = folderProblems(readLabels(dir), manifest, dir === searchGoldenDir);
    console.log(`\ninvariants ${name(dir)}: ${problems.length} problem(s)${problems.length ? '\n  ' + problems.join('\n  ') : ''}`);
    failed ||= mustPass && problems.length > 0;
  }
  return failed ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main(process.argv.slice(2));
