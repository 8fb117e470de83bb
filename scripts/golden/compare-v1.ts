/**
 * Golden comparison of the v1 fields (labels: scripts/golden/dev-corpus.ts; conventions:
 * ../shared/fixtures/README.md): parses each labelled page and classifies every field as exact / miss / wrong.
 */
import { readFileSync } from 'node:fs';
import type { PageParse, ProductFields } from '../../core/product.js';
import { decodePage, parseProductPage } from '../../worker/parser/index.js';
import type { ManifestRow } from './dev-corpus.js';

export { havePages, pagesDir, readManifest, repoRoot, type ManifestRow } from './dev-corpus.js';

/** What reads a page: the parser of this tree, or another tree's (scripts/parser-score.ts compares them). */
export type PageReader = typeof parseProductPage;

export const FIELDS = ['status', 'title', 'byline', 'variant', 'variants', 'price', 'bsr', 'rating', 'ratings_count', 'image_url', 'details'] as const;
export type Field = (typeof FIELDS)[number];
export type Verdict = 'exact' | 'miss' | 'wrong';

export type Expected = Partial<ProductFields> & { not_an_observation?: string };

/** The page's text and its v1 label. Throws when the page has no v1 label. */
export function loadPage(row: ManifestRow): { html: string; expected: Expected } {
  if (!row.v1Label) throw new Error(`${row.file}: no v1 golden label`);
  const html = decodePage(readFileSync(row.path));
  const expected = JSON.parse(readFileSync(row.v1Label, 'utf8')) as Expected;
  return { html, expected };
}

/** The page kind the golden expects. */
export function expectedKind(row: ManifestRow): PageParse['kind'] {
  if (row.kind === 'captcha') return 'robot_check';
  if (row.kind === 'other') return 'error_page';
  return 'product';
}

const imageId = (u: string | null | undefined): string | null => (u ? (/\/images\/[IP]\/([^./]+)/.exec(u)?.[1] ?? u) : null);
const setKey = (xs: unknown[]): string => JSON.stringify(xs.map((x) => JSON.stringify(x)).sort());
const isEmpty = (v: unknown): boolean =>
  v === null || v === undefined || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);

function equal(field: Field, a: unknown, e: unknown): boolean {
  switch (field) {
    case 'byline':
    case 'variants':
      return setKey(a as unknown[]) === setKey(e as unknown[]);
    case 'image_url':
      return imageId(a as string) === imageId(e as string);
    case 'rating':
      return a === null || e === null ? a === e : Math.abs((a as number) - (e as number)) <= 0.05;
    case 'price': {
      const pa = a as ProductFields['price'];
      const pe = e as ProductFields['price'];
      return !pa || !pe ? pa === pe : pa.currency === pe.currency && Math.abs(pa.amount - pe.amount) <= 0.005;
    }
    case 'bsr': {
      const ba = a as ProductFields['bsr'];
      const be = e as ProductFields['bsr'];
      if (!ba || !be) return ba === be;
      return ba.rank === be.rank && ba.category === be.category && setKey(ba.subcategories) === setKey(be.subcategories);
    }
    case 'details':
      return JSON.stringify(Object.entries(a as object).sort()) === JSON.stringify(Object.entries(e as object).sort());
    default:
      return a === e;
  }
}

/** exact / miss (null or empty where a value exists) / wrong (any other difference). */
export function verdict(field: Field, actual: unknown, expected: unknown): Verdict {
  if (equal(field, actual, expected)) return 'exact';
  if (isEmpty(actual) && !isEmpty(expected)) return 'miss';
  return 'wrong';
}

export interface PageResult {
  row: ManifestRow;
  parse: PageParse;
  expected: Expected;
  verdicts: Partial<Record<Field, Verdict>>;
}

export function runPage(row: ManifestRow, read: PageReader = parseProductPage): PageResult {
  const { html, expected } = loadPage(row);
  const parse = read(html, row.marketplace);
  const verdicts: Partial<Record<Field, Verdict>> = {};
  if (parse.kind === 'product' && expectedKind(row) === 'product') {
    for (const f of FIELDS) verdicts[f] = verdict(f, parse.fields[f], expected[f]);
  }
  return { row, parse, expected, verdicts };
}

/** Per field x marketplace table of exact/miss/wrong counts. */
export function table(results: PageResult[]): string {
  const mps = [...new Set(results.map((r) => r.row.domain))];
  const head = ['field', ...mps];
  const rows: string[][] = [head];
  for (const f of FIELDS) {
    const cells: string[] = [f];
    for (const mp of mps) {
      const rs = results.filter((r) => r.row.domain === mp && r.verdicts[f]);
      const c = { exact: 0, miss: 0, wrong: 0 };
      for (const r of rs) c[r.verdicts[f]!]++;
      cells.push(rs.length ? `${c.exact}/${c.miss}/${c.wrong}` : '-');
    }
    rows.push(cells);
  }
  const w = head.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return [
    'exact/miss/wrong per field x marketplace',
    ...rows.map((r) => r.map((c, i) => c.padEnd(w[i]!)).join(' | ')),
  ].join('\n');
}
