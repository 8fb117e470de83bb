/**
 * The search parser's development corpus: the saved search result pages beside the repository
 * (`../shared/fixtures/search`, never copied into it; MANIFEST.tsv names each page's marketplace,
 * keyword and year) and where their labels live (test/golden/search: the reconciled golden set,
 * with its RULINGS.md and DISAGREEMENTS.md).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { marketplaceByDomainSuffix, type Marketplace } from '../../core/marketplaces.js';
import { repoRoot } from './dev-corpus.js';

/** The saved search pages' folder. */
export const searchDir = path.resolve(repoRoot, '../shared/fixtures/search');
export const haveSearchPages = existsSync(path.join(searchDir, 'MANIFEST.tsv'));

/** One saved search page. */
export interface SearchPage {
  file: string;
  path: string;
  marketplace: Marketplace;
}

/** The saved search pages, in manifest order. */
export function searchPages(): SearchPage[] {
  if (!haveSearchPages) return [];
  const [head, ...rows] = readFileSync(path.join(searchDir, 'MANIFEST.tsv'), 'utf8').split('\n').filter((l) => l.trim());
  const cols = head!.split('\t');
  const fileCol = cols.indexOf('file');
  const mpCol = cols.indexOf('marketplace');
  return rows.map((r) => {
    const c = r.split('\t');
    const file = c[fileCol]!;
    const marketplace = marketplaceByDomainSuffix(c[mpCol]!);
    if (!marketplace) throw new Error(`${file}: unknown marketplace ${c[mpCol]}`);
    return { file, path: path.join(searchDir, file), marketplace };
  });
}

/** The reconciled golden labels' folder (one JSON file per saved page, named after it). */
export function searchLabelsDir(): string {
  return path.join(repoRoot, 'test/golden/search');
}
