/**
 * Corpus-wide snapshot of the parser's output: every saved page of ../shared/fixtures/pages parsed,
 * every field kept, written as stable JSON (object keys sorted, one page per entry) to
 * test/golden/corpus-snapshot.json. Comparing a fresh snapshot with the checked-in one shows every field
 * of every page a parser change moves, so a fix for one layout cannot silently change another.
 * Used by `npm run parser:corpus` (scripts/parser-corpus.ts) and test/unit/parser-corpus.test.ts.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { marketplaceByDomainSuffix } from '../core/marketplaces.js';
import { decodePage, parseProductPage } from '../worker/parser/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The saved pages (shared fixtures, never copied into the repository). */
export const corpusPagesDir = path.resolve(repoRoot, '../shared/fixtures/pages');
/** The checked-in snapshot. */
export const corpusSnapshotPath = path.join(repoRoot, 'test/golden/corpus-snapshot.json');

/** Page file -> what the parser returns for it (the page kind and, for product pages, every field). */
export type CorpusSnapshot = Record<string, unknown>;

/** Parses every saved page; pages in file-name order. Throws when a page's marketplace is unknown. */
export function takeCorpusSnapshot(dir = corpusPagesDir): CorpusSnapshot {
  const out: CorpusSnapshot = {};
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.html')).sort()) {
    const suffix = file.slice(0, file.indexOf('_'));
    const marketplace = marketplaceByDomainSuffix(suffix);
    if (!marketplace) throw new Error(`${file}: unknown marketplace ${suffix}`);
    out[file] = parseProductPage(decodePage(readFileSync(path.join(dir, file))), marketplace);
  }
  return out;
}

/** Stable JSON: object keys sorted at every level, two-space indent, trailing newline. */
export function stableJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]));
    return v;
  };
  return `${JSON.stringify(sort(value), null, 2)}\n`;
}

/** The checked-in snapshot, or null when there is none yet. */
export function readCorpusSnapshot(file = corpusSnapshotPath): CorpusSnapshot | null {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as CorpusSnapshot) : null;
}

const show = (v: unknown): string => (v === undefined ? '(absent)' : JSON.stringify(v));

/**
 * Every difference between two snapshots, one line per (page, field): `page field: before -> after`.
 * Fields are the parse's `fields` members (and `kind`); pages present in one snapshot only are listed too.
 */
export function diffCorpusSnapshots(before: CorpusSnapshot, after: CorpusSnapshot): string[] {
  const out: string[] = [];
  const pages = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  for (const page of pages) {
    const a = before[page] as { kind?: unknown; fields?: Record<string, unknown> } | undefined;
    const b = after[page] as { kind?: unknown; fields?: Record<string, unknown> } | undefined;
    if (!a || !b) {
      out.push(`${page}: ${a ? 'gone' : 'new page'}`);
      continue;
    }
    const normA = JSON.parse(stableJson(a)) as typeof a;
    const normB = JSON.parse(stableJson(b)) as typeof b;
    if (!isDeepStrictEqual(normA.kind, normB.kind)) out.push(`${page} kind: ${show(normA.kind)} -> ${show(normB.kind)}`);
    const fa = normA.fields ?? {};
    const fb = normB.fields ?? {};
    for (const f of [...new Set([...Object.keys(fa), ...Object.keys(fb)])].sort()) {
      if (!isDeepStrictEqual(fa[f], fb[f])) out.push(`${page} ${f}: ${show(fa[f])} -> ${show(fb[f])}`);
    }
    const restA = { ...normA, kind: undefined, fields: undefined };
    const restB = { ...normB, kind: undefined, fields: undefined };
    if (!isDeepStrictEqual(restA, restB)) out.push(`${page}: ${show(restA)} -> ${show(restB)}`);
  }
  return out;
}
