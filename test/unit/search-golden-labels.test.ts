/**
 * The reconciled golden labels of the saved search pages (test/golden/search, the set the search
 * parser is tested against): one label per page of ../shared/fixtures/search, and every label keeps
 * the search-page contract's invariants (scripts/golden/compare-search.ts). The labellers' own folders
 * are compared and printed for the record.
 */
import { expect, it } from 'vitest';
import { describeNeeding, savedSearchPages } from '../support/prerequisites.js';
import {
  compare, folderProblems, labelProblems, labellerDirs, readLabels, readSearchManifest, report, searchGoldenDir,
} from '../../scripts/golden/compare-search.js';

describeNeeding([savedSearchPages], 'reconciled search golden labels', () => {
  const manifest = readSearchManifest();
  const golden = readLabels(searchGoldenDir);

  it('labels every saved search page, and every label keeps the contract invariants', () => {
    expect(golden.size).toBe(manifest.size);
    expect(folderProblems(golden, manifest, true)).toEqual([]);
  });

  it('reports a label that breaks positions, organic positions, url or the prime/price pairing', () => {
    const [stem, label] = [...golden].find(([, l]) => l.items.some((i) => i.price !== null) && l.items.some((i) => !i.sponsored))!;
    const items = structuredClone(label.items);
    const priced = items.findIndex((i) => i.price !== null);
    items[priced]!.prime = null;
    items[0]!.position = 2;
    items[0]!.url = items[0]!.url.replace('/dp/', '/gp/product/');
    const organic = items.findIndex((i) => !i.sponsored);
    items[organic]!.organic_position = 5;
    const problems = labelProblems(stem, { ...label, items }, manifest.get(stem), true).join('\n');
    expect(problems).toContain(`#${priced + 1} ${items[priced]!.asin}: prime null with price`);
    expect(problems).toContain('#1 ' + items[0]!.asin + ': position 2, expected 1');
    expect(problems).toContain('url https://');
    expect(problems).toContain(`#${organic + 1} ${items[organic]!.asin}: organic_position 5`);
  });

  it('prints the labellers\' agreement', () => {
    const c = compare(readLabels(labellerDirs.a), readLabels(labellerDirs.b));
    console.log(report(c, 'a', 'b').split('\n').filter((l) => !l.startsWith('  ')).join('\n'));
    expect(c.countDiffs).toEqual([]);
    expect(c.asinDiffs).toEqual([]);
  });
});
