/**
 * The corpus-wide before/after check: every saved page of ../shared/fixtures/pages parses to exactly
 * what test/golden/corpus-snapshot.json records, every field. A change shows as a per-page, per-field
 * diff; accept an intended one with `npm run parser:corpus -- --write` (scripts/parser-corpus.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  buildCorpusSnapshot,
  corpusPages,
  corpusSnapshotFile,
  diffSnapshots,
  formatDiff,
  readCorpusSnapshot,
  serializeSnapshot,
  snapshotOfParse,
  type CorpusSnapshot,
} from '../../scripts/parser-corpus.js';
import { describeNeeding, savedPages } from '../support/prerequisites.js';

describe('corpus snapshot diff', () => {
  const before: CorpusSnapshot = {
    'a.html': { kind: 'product', price: { amount: 1, currency: 'USD' }, byline: ['X'], details: { a: '1' } },
    'b.html': { kind: 'robot_check', reason: 'captcha form' },
  };

  it('is empty for equal snapshots', () => expect(diffSnapshots(before, structuredClone(before))).toEqual([]));

  it('names the page, the field and the changed leaf', () => {
    const after = structuredClone(before);
    after['a.html']!.price = null;
    after['a.html']!.byline = ['X', 'Y'];
    after['a.html']!.details = { a: '1', 'b-c': '2' };
    const changes = diffSnapshots(before, after);
    expect(changes).toEqual([
      { page: 'a.html', field: 'byline', path: '[1]', before: undefined, after: 'Y' },
      { page: 'a.html', field: 'details', path: '["b-c"]', before: undefined, after: '2' },
      { page: 'a.html', field: 'price', path: '', before: { amount: 1, currency: 'USD' }, after: null },
    ]);
    expect(formatDiff(changes)).toBe(
      [
        'a.html',
        '  byline[1]: (absent) -> "Y"',
        '  details["b-c"]: (absent) -> "2"',
        '  price: {"amount":1,"currency":"USD"} -> null',
        '3 changed value(s) in 3 field(s) of 1 page(s)',
      ].join('\n'),
    );
  });

  it('reports pages added or gone, and fields of any name', () => {
    const after: CorpusSnapshot = { 'a.html': { ...before['a.html']!, new_field: [] }, 'c.html': { kind: 'not_found' } };
    const lines = formatDiff(diffSnapshots(before, after)).split('\n');
    expect(lines).toContain('  new_field: (absent) -> []');
    expect(lines).toContain('  (page): {"kind":"robot_check","reason":"captcha form"} -> (absent)');
    expect(lines).toContain('  (page): (absent) -> {"kind":"not_found"}');
  });

  it('sorts every key, so the file does not depend on the order fields are built in', () => {
    const a = snapshotOfParse({ kind: 'not_found' });
    expect(Object.keys(snapshotOfParse({ kind: 'degraded', reason: 'r' }))).toEqual(['kind', 'reason']);
    expect(a).toEqual({ kind: 'not_found' });
    expect(serializeSnapshot({ p: { b: 1, a: { d: 1, c: 2 } } as never })).toBe(serializeSnapshot({ p: { a: { c: 2, d: 1 }, b: 1 } as never }));
  });
});

describeNeeding([savedPages], 'parser corpus snapshot', () => {
  it('every saved page parses as test/golden/corpus-snapshot.json records (npm run parser:corpus -- --write)', () => {
    const committed = readCorpusSnapshot();
    expect(committed, `no snapshot at ${corpusSnapshotFile}`).not.toBeNull();
    const now = buildCorpusSnapshot();
    expect(Object.keys(now)).toEqual(corpusPages().map((p) => p.file));
    const changes = diffSnapshots(committed!, now);
    expect(changes.length, `the parser differs from the corpus snapshot:\n${formatDiff(changes)}`).toBe(0);
  });
});
