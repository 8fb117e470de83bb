/**
 * Exact-field scores of a parser over the labelled development corpus, grouped the ways the
 * generalization tables of BENCHMARKS.md need them (by corpus folder, source repository,
 * marketplace, year band). A v1 field counts on product pages whose label is a product; a v2 field
 * on every page whose v2 label has fields; "exact" is the golden tests' own comparison
 * (compare-v1.ts `verdict`, compare-v2.ts deep equality).
 */
import { FIELDS, runPage, type PageReader } from './compare-v1.js';
import { readFileSync } from 'node:fs';
import { runLabel, V2_FIELDS, type Label } from './compare-v2.js';
import { yearBand, type ManifestRow } from './dev-corpus.js';

/** v1 and v2 field names, v1 first. */
export const ALL_FIELDS = [...FIELDS, ...V2_FIELDS] as const;
export type AnyField = (typeof ALL_FIELDS)[number];

/** One page's verdicts: per field, exact or not (absent when the field does not count on that page). */
export interface PageScore {
  row: ManifestRow;
  exact: Partial<Record<AnyField, boolean>>;
}

/** Scores every labelled page of `rows` with `read` (each row's own v1 and v2 label files). */
export function scorePages(rows: readonly ManifestRow[], read: PageReader): PageScore[] {
  const byFile = new Map(rows.map((r) => [r.file, r]));
  return rows
    .filter((r) => r.v1Label !== null)
    .map((row) => {
      const exact: PageScore['exact'] = {};
      const v1 = runPage(row, read);
      for (const f of FIELDS) if (v1.verdicts[f] !== undefined) exact[f] = v1.verdicts[f] === 'exact';
      const label = row.v2Label ? (JSON.parse(readFileSync(row.v2Label, 'utf8')) as Label) : null;
      if (label) Object.assign(exact, runLabel(label, byFile, read).exact);
      return { row, exact };
    });
}

/** The ways pages are grouped. */
export const GROUPINGS = {
  folder: (r: ManifestRow) => r.folder,
  source: (r: ManifestRow) => r.source,
  marketplace: (r: ManifestRow) => r.domain,
  year: (r: ManifestRow) => yearBand(r.year),
} as const;
export type Grouping = keyof typeof GROUPINGS;

/** Exact and counted (page, field) pairs. */
export interface Tally {
  exact: number;
  total: number;
}

/** Tally of `field` (or of every field when `field` is null) over `pages`. */
export function tally(pages: readonly PageScore[], field: AnyField | null): Tally {
  const t = { exact: 0, total: 0 };
  for (const p of pages) {
    for (const [f, ok] of Object.entries(p.exact)) {
      if (field !== null && f !== field) continue;
      t.total++;
      if (ok) t.exact++;
    }
  }
  return t;
}

/** `98.5 % (67/68)`, or `–` when nothing counted. */
export function showTally(t: Tally): string {
  return t.total === 0 ? '–' : `${((100 * t.exact) / t.total).toFixed(1)} % (${t.exact}/${t.total})`;
}

/** Pages by group value, values sorted. */
export function groupPages(pages: readonly PageScore[], grouping: Grouping): Map<string, PageScore[]> {
  const out = new Map<string, PageScore[]>();
  for (const p of pages) {
    const key = GROUPINGS[grouping](p.row);
    out.set(key, [...(out.get(key) ?? []), p]);
  }
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}

/** A Markdown table. */
export function markdownTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}
