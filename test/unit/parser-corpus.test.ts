/**
 * Corpus-wide before/after check: every saved page parsed, every field compared with the checked-in
 * snapshot (test/golden/corpus-snapshot.json). A change that moves any field of any page fails here
 * with the list of differences; when the change is meant, regenerate the snapshot deliberately with
 * `npm run parser:corpus -- --write` and commit it with the change.
 */
import { describe, expect, it } from 'vitest';
import { diffCorpusSnapshots, readCorpusSnapshot, takeCorpusSnapshot } from '../../scripts/parser-corpus-snapshot.js';
import { describeNeeding, savedPages } from '../support/prerequisites.js';

describe('snapshot differences', () => {
  const product = (fields: Record<string, unknown>): unknown => ({ kind: 'product', fields });
  const before = {
    'a.html': product({ price: { amount: 1, currency: 'USD' }, byline: ['X'], bsr: { rank: 9, subcategories: [{ rank: 5, category: 'C' }] } }),
    'b.html': { kind: 'robot_check', reason: 'captcha form' },
  };

  it('none between equal snapshots, whatever their key order', () =>
    expect(diffCorpusSnapshots(before, JSON.parse(JSON.stringify(before)) as typeof before)).toEqual([]));

  it('one line per changed place of a field: page, field and path, before -> after', () => {
    const after = {
      ...before,
      'a.html': product({ price: null, byline: ['X', 'Y'], bsr: { rank: 9, subcategories: [{ rank: 6, category: 'C' }] }, description: 'd'.repeat(300) }),
    };
    const lines = diffCorpusSnapshots(before, after);
    expect(lines.slice(0, 3)).toEqual([
      'a.html bsr.subcategories[0].rank: 5 -> 6',
      'a.html byline[1]: (absent) -> "Y"',
      `a.html description: (absent) -> "${'d'.repeat(158)}…`,
    ]);
    expect(lines[3]).toBe('a.html price: {"amount":1,"currency":"USD"} -> null');
    expect(lines).toHaveLength(4);
  });

  it('pages gone or new, and a page kind that changed', () => {
    const lines = diffCorpusSnapshots(before, { 'a.html': { kind: 'not_found' }, 'c.html': { kind: 'not_found' } });
    expect(lines).toContain('a.html kind: "product" -> "not_found"');
    expect(lines).toContain('b.html: gone');
    expect(lines).toContain('c.html: new page');
  });
});

describeNeeding([savedPages], 'parser output over every saved page against the corpus snapshot', () => {
  it('every field of every page equals the snapshot', () => {
    const before = readCorpusSnapshot();
    expect(before, 'test/golden/corpus-snapshot.json is missing: run `npm run parser:corpus -- --write`').not.toBeNull();
    const diff = diffCorpusSnapshots(before!, takeCorpusSnapshot());
    expect(diff, `differences from the snapshot (regenerate deliberately with \`npm run parser:corpus -- --write\`):\n${diff.join('\n')}`).toEqual([]);
  });
});
