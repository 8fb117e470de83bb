/**
 * `npm run parser:corpus [-- --write]`: the corpus-wide before/after check of the parser.
 *
 * Parses every saved page of `../shared/fixtures/pages` (the rows of its MANIFEST.tsv) with
 * `parseProductPage` and builds a snapshot of what the parser yields for each page: `{ kind }` plus
 * every field of the Product (whatever fields `ProductFields` has), or `{ kind, reason }` for a page
 * that is not an observation. The snapshot is one JSON object, one page per top-level key, every
 * object's keys sorted, so it is stable and its diffs are small. It is checked in at
 * `test/golden/corpus-snapshot.json`.
 *
 * Without `--write` it prints the per-page, per-field difference between the parser and the
 * checked-in snapshot and exits 1 when there is one; `--write` replaces the snapshot (do it
 * deliberately, after reading the difference). test/unit/parser-corpus.test.ts fails on any difference.
 * The snapshot records what the parser does, not what is right: the golden files say what is right.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { marketplaceByDomainSuffix, type Marketplace } from '../core/marketplaces.js';
import type { PageParse } from '../core/product.js';
import { decodePage, parseProductPage } from '../worker/parser/index.js';

export const repoRoot = fileURLToPath(new URL('../', import.meta.url));
/** The saved pages (never copied into the repository). */
export const corpusPagesDir = path.resolve(repoRoot, '../shared/fixtures/pages');
/** The checked-in snapshot. */
export const corpusSnapshotFile = path.join(repoRoot, 'test/golden/corpus-snapshot.json');

/** JSON values as the snapshot holds them. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** What the parser yielded for each page, by page file name (`com_B0823MDHDJ.html`). */
export type CorpusSnapshot = Record<string, Record<string, Json>>;

/** One saved page: its file and the marketplace it was read from. */
export interface CorpusPage {
  file: string;
  marketplace: Marketplace;
}

/**
 * The saved pages listed in MANIFEST.tsv (columns `file`, `marketplace` as a domain suffix, …), in file order.
 * @throws when the manifest names a marketplace suffix that is not one of the 12
 */
export function corpusPages(dir = corpusPagesDir): CorpusPage[] {
  const [header, ...rows] = fs.readFileSync(path.join(dir, 'MANIFEST.tsv'), 'utf8').trim().split('\n');
  const cols = header!.split('\t');
  const fileCol = cols.indexOf('file');
  const mpCol = cols.indexOf('marketplace');
  return rows
    .map((row) => {
      const cells = row.split('\t');
      const suffix = cells[mpCol]!;
      const marketplace = marketplaceByDomainSuffix(suffix);
      if (!marketplace) throw new Error(`MANIFEST.tsv: unknown marketplace ${suffix}`);
      return { file: cells[fileCol]!, marketplace };
    })
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** A value with every object's keys sorted (arrays keep their order); `undefined` members dropped. */
export function sortKeys(value: unknown): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, Json> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value as Json;
}

/** One page's entry: `kind` and every field of a product page, or `kind` and `reason` (keys sorted). */
export function snapshotOfParse(parse: PageParse): Record<string, Json> {
  const entry = parse.kind === 'product' ? { kind: parse.kind, ...parse.fields } : parse;
  return sortKeys(entry) as Record<string, Json>;
}

/** Parses every saved page and returns the snapshot (pages in file order). */
export function buildCorpusSnapshot(dir = corpusPagesDir): CorpusSnapshot {
  const out: CorpusSnapshot = {};
  for (const page of corpusPages(dir)) {
    const html = decodePage(fs.readFileSync(path.join(dir, page.file)));
    out[page.file] = snapshotOfParse(parseProductPage(html, page.marketplace));
  }
  return out;
}

/** The snapshot as written to disk: pages and every object's keys sorted, 2-space JSON, a final newline. */
export function serializeSnapshot(snapshot: CorpusSnapshot): string {
  return `${JSON.stringify(sortKeys(snapshot), null, 2)}\n`;
}

/** The checked-in snapshot, or null when there is none yet. */
export function readCorpusSnapshot(file = corpusSnapshotFile): CorpusSnapshot | null {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as CorpusSnapshot) : null;
}

/** One changed place of one field of one page (`path` below the field, `''` for the field itself). */
export interface FieldChange {
  page: string;
  field: string;
  path: string;
  /** `undefined`: absent on that side. */
  before: Json | undefined;
  after: Json | undefined;
}

const same = (a: Json | undefined, b: Json | undefined): boolean => JSON.stringify(a) === JSON.stringify(b);
const isObject = (v: Json | undefined): v is { [key: string]: Json } => !!v && typeof v === 'object' && !Array.isArray(v);
const keyPath = (k: string): string => (/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);

/**
 * The changed places between two values: objects compared key by key, arrays index by index, anything
 * else (or a change of shape, such as an object becoming null) reported whole at its path.
 */
function changedPaths(b: Json | undefined, a: Json | undefined, at: string, out: [string, Json | undefined, Json | undefined][]): void {
  if (same(b, a)) return;
  if (isObject(b) && isObject(a)) {
    for (const k of [...new Set([...Object.keys(b), ...Object.keys(a)])].sort()) changedPaths(b[k], a[k], `${at}${keyPath(k)}`, out);
  } else if (Array.isArray(b) && Array.isArray(a)) {
    for (let i = 0; i < Math.max(b.length, a.length); i++) changedPaths(b[i], a[i], `${at}[${i}]`, out);
  } else out.push([at, b, a]);
}

/** Every difference between two snapshots, page by page (file order), field by field, place by place. */
export function diffSnapshots(before: CorpusSnapshot, after: CorpusSnapshot): FieldChange[] {
  const changes: FieldChange[] = [];
  const pages = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  for (const page of pages) {
    const b = before[page];
    const a = after[page];
    if (!b || !a) {
      changes.push({ page, field: '(page)', path: '', before: b, after: a });
      continue;
    }
    const fields = [...new Set([...Object.keys(b), ...Object.keys(a)])].sort();
    for (const field of fields) {
      if (same(b[field], a[field])) continue;
      const paths: [string, Json | undefined, Json | undefined][] = [];
      changedPaths(b[field], a[field], '', paths);
      for (const [p, before, after] of paths) changes.push({ page, field, path: p, before, after });
    }
  }
  return changes;
}

const MAX_SHOWN = 160;
function show(v: Json | undefined): string {
  if (v === undefined) return '(absent)';
  const s = JSON.stringify(v);
  return s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN - 1)}…` : s;
}

/** The differences as text: one block per page, one line per changed place (`field.path: before -> after`). */
export function formatDiff(changes: readonly FieldChange[]): string {
  const lines: string[] = [];
  let page = '';
  for (const c of changes) {
    if (c.page !== page) {
      page = c.page;
      lines.push(page);
    }
    lines.push(`  ${c.field}${c.path}: ${show(c.before)} -> ${show(c.after)}`);
  }
  const pages = new Set(changes.map((c) => c.page)).size;
  const fields = new Set(changes.map((c) => `${c.page}\0${c.field}`)).size;
  lines.push(`${changes.length} changed value(s) in ${fields} field(s) of ${pages} page(s)`);
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!fs.existsSync(path.join(corpusPagesDir, 'MANIFEST.tsv'))) {
    console.error(`no saved pages at ${corpusPagesDir}`);
    process.exit(1);
  }
  const now = buildCorpusSnapshot();
  const committed = readCorpusSnapshot();
  const changes = committed ? diffSnapshots(committed, now) : [];
  if (process.argv.includes('--write')) {
    fs.mkdirSync(path.dirname(corpusSnapshotFile), { recursive: true });
    fs.writeFileSync(corpusSnapshotFile, serializeSnapshot(now));
    if (changes.length) console.log(formatDiff(changes));
    console.log(`wrote ${Object.keys(now).length} pages to ${path.relative(repoRoot, corpusSnapshotFile)}`);
  } else if (!committed) {
    console.error(`no snapshot at ${path.relative(repoRoot, corpusSnapshotFile)}: run \`npm run parser:corpus -- --write\``);
    process.exit(1);
  } else if (changes.length) {
    console.log(formatDiff(changes));
    console.log('the parser differs from the snapshot: fix the parser, or accept with `npm run parser:corpus -- --write`');
    process.exit(1);
  } else {
    console.log(`all ${Object.keys(now).length} pages as in the snapshot`);
  }
}
