/**
 * Reads a replay folder's `MANIFEST.tsv` (operations-contract.md "Replay server") into lookup
 * tables from `<domain>/<ASIN>` (product pages) and from marketplace + keyword + results page
 * (search pages, rows of kind `search` or `no_results`) to the saved page that answers it.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/** Page kinds of the manifest and the HTTP status each one is answered with. */
export const KIND_STATUS = {
  product: 200,
  no_bsr: 200,
  unavailable: 200,
  captcha: 200,
  not_found: 404,
  other: 503,
  search: 200,
  no_results: 200,
} as const;

export type PageKind = keyof typeof KIND_STATUS;

/** One addressable row of the manifest. */
export interface ReplayPage {
  /** File name inside the folder (`de_B00004YS4O.html`). */
  file: string;
  /** Absolute path of the file. */
  filePath: string;
  /** Marketplace host, e.g. `www.amazon.de` (from the manifest's `marketplace` suffix `de`). */
  domain: string;
  /** Upper-case ASIN; empty on search pages. */
  asin: string;
  kind: PageKind;
  /** Search pages: the manifest's `keyword`, and its `page` (1 when the column is absent or empty). */
  search?: { keyword: string; page: number };
  /** `approx_year` of the row; 0 when the column is missing or not a number. */
  year: number;
  /** HTTP status the page is answered with. */
  status: number;
}

/** The loaded manifest: addressable pages plus what was skipped and why. */
export interface ReplayManifest {
  /** Keyed by {@link pageKey}. */
  pages: Map<string, ReplayPage>;
  /** Search pages, keyed by {@link searchKey}. */
  searches: Map<string, ReplayPage>;
  /** One human-readable line per skipped or shadowed row. */
  warnings: string[];
}

/** Lookup key of a page: lower-case host and upper-case ASIN. */
export function pageKey(domain: string, asin: string): string {
  return `${domain.toLowerCase()}/${asin.toUpperCase()}`;
}

/**
 * Lookup key of a search page: lower-case host, the keyword with case ignored and whitespace
 * trimmed and collapsed (operations-contract.md: "keyword matching ignores case and collapses
 * whitespace"), and the 1-based results page.
 */
export function searchKey(domain: string, keyword: string, page: number): string {
  return `${domain.toLowerCase()}|${keyword.trim().replace(/\s+/gu, ' ').toLowerCase()}|${page}`;
}

const isSearchKind = (kind: PageKind): boolean => kind === 'search' || kind === 'no_results';

/**
 * A row answers a search path when it is a search page, or a robot check / error page saved at a
 * search path (a keyword and no ASIN): reads of search pages meet those too.
 */
const isSearchRow = (kind: PageKind, asin: string, keyword: string): boolean =>
  isSearchKind(kind) || (!asin && keyword !== '' && (kind === 'captcha' || kind === 'other'));

/** Kinds that are observations of the product win ties over robot checks and error pages. */
function isObservationKind(kind: PageKind): boolean {
  return kind !== 'captcha' && kind !== 'other';
}

/**
 * Loads `<dir>/MANIFEST.tsv`. Rows with an empty `asin` (an empty `keyword` for kinds `search` and
 * `no_results`; rows of kind `captcha` or `other` with a keyword and no ASIN answer that search
 * path), an unknown `kind` or a missing file are skipped (with a warning); of two search
 * rows for the same marketplace, keyword and page the first is served. When several rows share marketplace + ASIN, the newest `approx_year`
 * is served; on equal years an observation page (product, no_bsr, unavailable, not_found) beats a
 * captcha/other page, then the earlier row wins. Shadowed rows are listed in `warnings`.
 * @throws Error when the manifest is missing or lacks one of the columns file, marketplace, asin, kind.
 */
export async function loadManifest(dir: string): Promise<ReplayManifest> {
  const root = path.resolve(dir);
  const manifestPath = path.join(root, 'MANIFEST.tsv');
  const text = await fs.readFile(manifestPath, 'utf8');
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const header = (lines.shift() ?? '').split('\t').map((h) => h.trim());
  const col = (name: string): number => header.indexOf(name);
  for (const required of ['file', 'marketplace', 'asin', 'kind']) {
    if (col(required) < 0) throw new Error(`${manifestPath}: no "${required}" column in the header`);
  }

  const pages = new Map<string, ReplayPage>();
  const searches = new Map<string, ReplayPage>();
  const warnings: string[] = [];
  for (const line of lines) {
    const cells = line.split('\t');
    const cell = (name: string): string => (col(name) >= 0 ? (cells[col(name)] ?? '').trim() : '');
    const file = cell('file');
    const asin = cell('asin').toUpperCase();
    const kind = cell('kind') as PageKind;
    const yearNumber = Number.parseInt(cell('approx_year'), 10);
    const keyword = cell('keyword');
    if (isSearchKind(kind) && !keyword) {
      warnings.push(`${file}: no keyword, not addressable`);
      continue;
    }
    if (!asin && !isSearchRow(kind, asin, keyword)) {
      warnings.push(`${file}: no asin, not addressable`);
      continue;
    }
    if (!Object.hasOwn(KIND_STATUS, kind)) {
      warnings.push(`${file}: unknown kind "${kind}", skipped`);
      continue;
    }
    // Manifest entries are plain file names; refuse anything that would leave the folder.
    const filePath = path.join(root, file);
    if (!file || path.dirname(filePath) !== root) {
      warnings.push(`${file}: not a file name inside the folder, skipped`);
      continue;
    }
    try {
      await fs.access(filePath);
    } catch {
      warnings.push(`${file}: file missing, skipped`);
      continue;
    }
    const page: ReplayPage = {
      file,
      filePath,
      domain: `www.amazon.${cell('marketplace').toLowerCase()}`,
      asin,
      kind,
      year: Number.isFinite(yearNumber) ? yearNumber : 0,
      status: KIND_STATUS[kind],
    };
    if (isSearchRow(kind, asin, keyword)) {
      const resultsPage = Number.parseInt(cell('page'), 10);
      page.search = { keyword, page: Number.isInteger(resultsPage) && resultsPage > 0 ? resultsPage : 1 };
      const key = searchKey(page.domain, keyword, page.search.page);
      const shadowed = searches.get(key);
      if (shadowed) warnings.push(`${file}: shadowed by ${shadowed.file} for ${key}`);
      else searches.set(key, page);
      continue;
    }
    const key = pageKey(page.domain, page.asin);
    const current = pages.get(key);
    if (!current) {
      pages.set(key, page);
      continue;
    }
    const wins =
      page.year > current.year ||
      (page.year === current.year && isObservationKind(page.kind) && !isObservationKind(current.kind));
    const [winner, loser] = wins ? [page, current] : [current, page];
    pages.set(key, winner);
    warnings.push(`${loser.file}: shadowed by ${winner.file} for ${key}`);
  }
  return { pages, searches, warnings };
}
