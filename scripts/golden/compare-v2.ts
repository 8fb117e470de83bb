/**
 * Golden comparison of the version 2 fields (test/golden/v2/<page>.json, written by reading each saved
 * page under the contract; pages of every folder of scripts/golden/dev-corpus.ts): parses each labelled page and compares every v2 field by deep equality.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { PageParse, ProductFields } from '../../core/product.js';
import { decodePage, parseProductPage } from '../../worker/parser/index.js';
import type { PageReader } from './compare-v1.js';
import { readCorpus, v2LabelsDir as labelsDir, type ManifestRow } from './dev-corpus.js';

export { labelsDir };

/** The version 2 fields the labels hold, in label order. */
export const V2_FIELDS = [
  'list_price', 'subscribe_save_price', 'coupon', 'prime', 'buy_box', 'availability', 'delivery',
  'feature_bullets', 'description', 'images', 'categories', 'rating_histogram',
] as const;
export type V2Field = (typeof V2_FIELDS)[number];

/** One label file. `fields` is null on pages that are not an observation (robot check, error page). */
export interface Label {
  page: string;
  fields: Record<V2Field, unknown> | null;
  not_an_observation?: string;
  unclear?: string[];
}

export interface V2Result {
  row: ManifestRow;
  label: Label;
  parse: PageParse;
  /** Per field: equal to the label, or not (only for pages with fields). */
  exact: Partial<Record<V2Field, boolean>>;
}

export function readLabels(): Label[] {
  if (!existsSync(labelsDir)) return [];
  return readdirSync(labelsDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(labelsDir, f), 'utf8')) as Label);
}

export function runLabel(label: Label, rows: Map<string, ManifestRow>, read: PageReader = parseProductPage): V2Result {
  const row = rows.get(label.page);
  if (!row) throw new Error(`label for a page not in any manifest: ${label.page}`);
  const parse = read(decodePage(readFileSync(row.path)), row.marketplace);
  const exact: V2Result['exact'] = {};
  if (label.fields && parse.kind === 'product') {
    for (const f of V2_FIELDS) exact[f] = isDeepStrictEqual(parse.fields[f], label.fields[f]);
  } else if (label.fields) {
    for (const f of V2_FIELDS) exact[f] = false;
  }
  return { row, label, parse, exact };
}

/** Every v2 label of every corpus folder, compared with what `read` returns for its page. */
export function runAll(read: PageReader = parseProductPage): V2Result[] {
  const rows = new Map(readCorpus().map((r) => [r.file, r]));
  return readLabels().map((l) => runLabel(l, rows, read));
}

/** The numbers of a field value that must never be wrong: money amounts, quantities, histogram percentages. */
export function numbersOf(field: V2Field, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (field) {
    case 'list_price':
    case 'subscribe_save_price':
    case 'rating_histogram':
      return v;
    case 'coupon':
      return (v as { amount: unknown }).amount;
    case 'availability':
      return (v as { quantity: unknown }).quantity;
    default:
      return undefined;
  }
}

/** `page:field got … want …` for every non-null number of the parse that differs from the label. */
export function wrongNumbers(results: readonly V2Result[]): string[] {
  const out: string[] = [];
  for (const r of results) {
    if (!r.label.fields || r.parse.kind !== 'product') continue;
    const fields: ProductFields = r.parse.fields;
    for (const f of V2_FIELDS) {
      const got = numbersOf(f, fields[f]);
      if (got === undefined || got === null) continue;
      const want = numbersOf(f, r.label.fields[f]);
      if (!isDeepStrictEqual(got, want)) out.push(`${r.label.page}:${f} got ${JSON.stringify(got)} want ${JSON.stringify(want)}`);
    }
  }
  return out;
}

/** Exact (page, field) pairs over all labelled pages with fields, and their number. */
export function exactRate(results: readonly V2Result[]): { exact: number; total: number } {
  let exact = 0;
  let total = 0;
  for (const r of results) for (const ok of Object.values(r.exact)) {
    total++;
    if (ok) exact++;
  }
  return { exact, total };
}

const cut = (v: unknown): string => {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
};

/** The per-field table, the overall rate, and each difference (got / want), for the test's output. */
export function report(results: readonly V2Result[]): string {
  const lines: string[] = [];
  const width = Math.max(...V2_FIELDS.map((f) => f.length));
  lines.push(`${'field'.padEnd(width)}  exact / pages   rate`);
  for (const f of V2_FIELDS) {
    const rs = results.filter((r) => r.exact[f] !== undefined);
    const ok = rs.filter((r) => r.exact[f]).length;
    lines.push(`${f.padEnd(width)}  ${String(ok).padStart(5)} / ${String(rs.length).padEnd(5)} ${rs.length ? ((100 * ok) / rs.length).toFixed(1).padStart(6) : '     -'}%`);
  }
  const { exact, total } = exactRate(results);
  lines.push(`overall: ${exact} / ${total} (page, field) pairs exact = ${total ? ((100 * exact) / total).toFixed(2) : '-'}%`);
  for (const r of results) {
    for (const f of V2_FIELDS) {
      if (r.exact[f] !== false) continue;
      const got = r.parse.kind === 'product' ? r.parse.fields[f] : `(${r.parse.kind})`;
      lines.push(`  ${r.label.page} ${f}\n    got  ${cut(got)}\n    want ${cut(r.label.fields?.[f])}`);
    }
  }
  return lines.join('\n');
}
