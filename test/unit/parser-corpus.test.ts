/**
 * Corpus-wide before/after check: every saved page parsed, every field compared with the checked-in
 * snapshot (test/golden/corpus-snapshot.json). A change that moves any field of any page fails here
 * with the list of differences; when the change is meant, regenerate the snapshot deliberately with
 * `npm run parser:corpus -- --write` and commit it with the change.
 */
import { expect, it } from 'vitest';
import { diffCorpusSnapshots, readCorpusSnapshot, takeCorpusSnapshot } from '../../scripts/parser-corpus-snapshot.js';
import { describeNeeding, savedPages } from '../support/prerequisites.js';

describeNeeding([savedPages], 'parser output over every saved page against the corpus snapshot', () => {
  it('every field of every page equals the snapshot', () => {
    const before = readCorpusSnapshot();
    expect(before, 'test/golden/corpus-snapshot.json is missing: run `npm run parser:corpus -- --write`').not.toBeNull();
    const diff = diffCorpusSnapshots(before!, takeCorpusSnapshot());
    expect(diff, `differences from the snapshot (regenerate deliberately with \`npm run parser:corpus -- --write\`):\n${diff.join('\n')}`).toEqual([]);
  });
});
