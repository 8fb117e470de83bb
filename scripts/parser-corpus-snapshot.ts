/**
 * Corpus-wide snapshot of the parser's output: every saved page of the development corpus parsed,
 * every field kept, written as stable JSON (object keys sorted, one page per entry) to
 * test/golden/corpus-snapshot.json. Comparing a fresh snapshot with the checked-in one shows every field
 * of every page a parser change moves, so a fix for one layout cannot silently change another.
 * Used by `npm run parser:corpus` (scripts/parser-corpus.ts) and test/unit/parser-corpus.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { decodePage, parseProductPage } from '../worker/parser/index.js';
import { readCorpus } from './golden/dev-corpus.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The checked-in snapshot. */
export const corpusSnapshotPath = path.join(repoRoot, 'test/golden/corpus-snapshot.json');

/** Page file -> what the parser returns for it (the page kind and, for product pages, every field). */
export type CorpusSnapshot = Record<string, unknown>;

/**
 * Parses every saved page of every corpus folder (scripts/golden/dev-corpus.ts); pages in file-name
 * order. Throws when a page's marketplace is unknown.
 */
export function takeCorpusSnapshot(): CorpusSnapshot {
  const out: CorpusSnapshot = {};
  for (const row of readCorpus().sort((a, b) => (a.file < b.file ? -1 : 1))) {
    out[row.file] = parseProductPage(decodePage(readFileSync(row.path)), row.marketplace);
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

/** Longest value shown whole in a difference line; longer ones are cut with `…`. */
const MAX_SHOWN = 160;
const show = (v: unknown): string => {
  if (v === undefined) return '(absent)';
  const s = JSON.stringify(v);
  return s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN - 1)}…` : s;
};
const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const keyPath = (k: string): string => (/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);

/**
 * The places where two values differ, each as `[path, before, after]`: objects compared key by key,
 * arrays index by index, anything else (or a change of shape, such as an object becoming null) whole.
 */
function changedPlaces(a: unknown, b: unknown, at: string, out: [string, unknown, unknown][]): void {
  if (isDeepStrictEqual(a, b)) return;
  if (isRecord(a) && isRecord(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) changedPlaces(a[k], b[k], `${at}${keyPath(k)}`, out);
  } else if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) changedPlaces(a[i], b[i], `${at}[${i}]`, out);
  } else out.push([at, a, b]);
}

/**
 * Every difference between two snapshots, one line per changed place of a field:
 * `page field.path: before -> after` (`com_X.html bsr.subcategories[1].rank: 5 -> 6`,
 * `com_X.html price: {"amount":1,"currency":"USD"} -> null`), long values cut. Fields are the parse's
 * `fields` members (and `kind`); pages present in one snapshot only are listed too.
 */
export function diffCorpusSnapshots(before: CorpusSnapshot, after: CorpusSnapshot): string[] {
  const out: string[] = [];
  const lines = (page: string, field: string, a: unknown, b: unknown): void => {
    const places: [string, unknown, unknown][] = [];
    changedPlaces(a, b, '', places);
    for (const [at, x, y] of places) out.push(`${page} ${field}${at}: ${show(x)} -> ${show(y)}`);
  };
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
    lines(page, 'kind', normA.kind, normB.kind);
    const fa = normA.fields ?? {};
    const fb = normB.fields ?? {};
    for (const f of [...new Set([...Object.keys(fa), ...Object.keys(fb)])].sort()) lines(page, f, fa[f], fb[f]);
    const restA = { ...normA, kind: undefined, fields: undefined };
    const restB = { ...normB, kind: undefined, fields: undefined };
    if (!isDeepStrictEqual(restA, restB)) out.push(`${page}: ${show(restA)} -> ${show(restB)}`);
  }
  return out;
}
