/**
 * `npm run parser:corpus [-- --write]`: parses every saved page and compares every field with the
 * checked-in snapshot (test/golden/corpus-snapshot.json), printing each difference, one line per changed
 * place (`page field.path: before -> after`); exits 1 when anything differs. `--write` replaces the
 * snapshot with the current output (a deliberate act: review the printed differences first).
 */
import { writeFileSync } from 'node:fs';
import {
  corpusSnapshotPath, diffCorpusSnapshots, readCorpusSnapshot, stableJson, takeCorpusSnapshot,
} from './parser-corpus-snapshot.js';

const write = process.argv.includes('--write');
const now = takeCorpusSnapshot();
const before = readCorpusSnapshot();
const diff = before ? diffCorpusSnapshots(before, now) : [`no snapshot at ${corpusSnapshotPath} yet`];
for (const line of diff) console.log(line);
console.log(`${Object.keys(now).length} pages; ${before ? diff.length : 'no'} differences from the snapshot`);
if (write) {
  writeFileSync(corpusSnapshotPath, stableJson(now));
  console.log(`wrote ${corpusSnapshotPath}`);
} else if (diff.length > 0) {
  process.exitCode = 1;
}
