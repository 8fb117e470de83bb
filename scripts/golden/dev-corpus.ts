/**
 * The parser's development corpus: the saved product pages beside the repository (never copied
 * into it) and where each page's hand-written golden labels live.
 * - `../shared/fixtures/pages`: v1 labels beside the pages (`<page>.expected.json`), v2 labels in
 *   test/golden/v2/<page stem>.json;
 * - `../shared/fixtures/pages-more`: unlabelled in the fixtures; the project's labels are
 *   test/golden/more/<page stem>.expected.json (v1) and test/golden/v2/<page stem>.json (v2),
 *   written by two labellers reading each page (test/golden/v2/RULINGS.md).
 * Each folder's MANIFEST.tsv names the page's marketplace, ASIN, kind, approximate year and source
 * repository (../shared/fixtures/README.md); page file names are unique across the folders.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { marketplaceByDomainSuffix, type Marketplace } from '../../core/marketplaces.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixturesDir = path.resolve(repoRoot, '../shared/fixtures');
/** The v2 labels of every folder. */
export const v2LabelsDir = path.join(repoRoot, 'test/golden/v2');

/** One folder of saved pages and where its v1 labels are. */
export interface CorpusFolder {
  name: 'pages' | 'pages-more';
  dir: string;
  /** Folder of `<page stem>.expected.json`. */
  v1LabelsDir: string;
}

export const CORPUS_FOLDERS: readonly CorpusFolder[] = [
  { name: 'pages', dir: path.join(fixturesDir, 'pages'), v1LabelsDir: path.join(fixturesDir, 'pages') },
  { name: 'pages-more', dir: path.join(fixturesDir, 'pages-more'), v1LabelsDir: path.join(repoRoot, 'test/golden/more') },
];

/** The first folder (its presence is the tests' `savedPages` prerequisite). */
export const pagesDir = CORPUS_FOLDERS[0]!.dir;
export const havePages = existsSync(path.join(pagesDir, 'MANIFEST.tsv'));

/** One saved page of the corpus. */
export interface ManifestRow {
  file: string;
  /** Absolute path of the saved page. */
  path: string;
  folder: CorpusFolder['name'];
  /** Domain after `amazon.` as the manifest writes it (com, co.uk, co.jp, ...). */
  domain: string;
  asin: string;
  /** product, no_bsr, unavailable, captcha, other. */
  kind: string;
  marketplace: Marketplace;
  /** Approximate year the page was served; null when the manifest gives none. */
  year: number | null;
  /** The public repository the page was saved from (owner/name). */
  source: string;
  /** Absolute path of the v1 golden label, or null when the page has none yet. */
  v1Label: string | null;
  /** Absolute path of the v2 golden label, or null when the page has none yet. */
  v2Label: string | null;
}

const existing = (p: string): string | null => (existsSync(p) ? p : null);

/**
 * Where pages-more's labels are read from instead of the project's golden folders: a folder of
 * `<page stem>.expected.json` (v1) and `<page stem>.v2.json` (v2), e.g. one labeller's raw labels
 * (test/golden/pages-more-labels/<labeller>) scored before they are reconciled.
 */
export interface LabelOverride {
  moreLabelsDir?: string;
}

/** The rows of one folder's MANIFEST.tsv (none when the folder is absent). Throws on an unknown marketplace. */
export function readFolder(folder: CorpusFolder, override: LabelOverride = {}): ManifestRow[] {
  const manifest = path.join(folder.dir, 'MANIFEST.tsv');
  if (!existsSync(manifest)) return [];
  const [head, ...lines] = readFileSync(manifest, 'utf8').trim().split('\n');
  const col = new Map(head!.split('\t').map((c, i) => [c, i]));
  const at = (cells: string[], name: string): string => cells[col.get(name) ?? -1] ?? '';
  return lines.map((line) => {
    const cells = line.split('\t');
    const file = at(cells, 'file');
    const domain = at(cells, 'marketplace');
    const marketplace = marketplaceByDomainSuffix(domain);
    if (!marketplace) throw new Error(`${file}: unknown marketplace ${domain}`);
    const stem = file.replace(/\.html$/, '');
    const year = Number.parseInt(at(cells, 'approx_year'), 10);
    return {
      file,
      path: path.join(folder.dir, file),
      folder: folder.name,
      domain,
      asin: at(cells, 'asin'),
      kind: at(cells, 'kind'),
      marketplace,
      year: Number.isFinite(year) ? year : null,
      source: at(cells, 'source_repo'),
      ...(folder.name === 'pages-more' && override.moreLabelsDir
        ? { v1Label: existing(path.join(override.moreLabelsDir, `${stem}.expected.json`)), v2Label: existing(path.join(override.moreLabelsDir, `${stem}.v2.json`)) }
        : { v1Label: existing(path.join(folder.v1LabelsDir, `${stem}.expected.json`)), v2Label: existing(path.join(v2LabelsDir, `${stem}.json`)) }),
    };
  });
}

/** Every saved page of every folder, in folder then manifest order. */
export function readCorpus(override: LabelOverride = {}): ManifestRow[] {
  return CORPUS_FOLDERS.flatMap((folder) => readFolder(folder, override));
}

/** The labelled development set: the pages with a v1 golden label. */
export function readManifest(override: LabelOverride = {}): ManifestRow[] {
  return readCorpus(override).filter((r) => r.v1Label !== null);
}

/** The year band a page falls in, for the per-year tables. */
export function yearBand(year: number | null): string {
  if (year === null) return 'unknown';
  if (year <= 2014) return '≤2014';
  if (year <= 2019) return '2015–19';
  if (year <= 2023) return '2020–23';
  return '2024–26';
}
