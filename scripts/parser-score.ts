/**
 * `npm run parser:score [-- options]`: exact-field scores over the labelled development corpus, as
 * Markdown tables (BENCHMARKS.md "Pages never seen" is made of them).
 *
 *   --parser name=path   another tree's worker/parser/index.ts, scored beside this tree's (`now`);
 *                        repeatable, in column order (e.g. before=/tmp/before/worker/parser/index.ts)
 *   --folder NAME        only the pages of one corpus folder (pages, pages-more)
 *   --labels DIR         pages-more's labels from DIR (`<stem>.expected.json`, `<stem>.v2.json`) instead
 *                        of the golden folders: one labeller's raw labels, before reconciliation
 *
 * Prints: every field per parser; the overall score per folder, source repository, marketplace and
 * year band per parser; then, for the last parser, every field per marketplace and per year band.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseProductPage } from '../worker/parser/index.js';
import type { PageReader } from './golden/compare-v1.js';
import { readManifest } from './golden/dev-corpus.js';
import {
  ALL_FIELDS, GROUPINGS, groupPages, markdownTable, scorePages, showTally, tally, type Grouping, type PageScore,
} from './golden/score.js';

const { values } = parseArgs({
  options: { parser: { type: 'string', multiple: true, default: [] }, folder: { type: 'string' }, labels: { type: 'string' } },
});

const readers: { name: string; read: PageReader }[] = [];
for (const spec of values.parser) {
  const [name, file] = spec.includes('=') ? [spec.slice(0, spec.indexOf('=')), spec.slice(spec.indexOf('=') + 1)] : [spec, spec];
  const mod = (await import(path.resolve(file))) as { parseProductPage: PageReader };
  readers.push({ name, read: mod.parseProductPage });
}
readers.push({ name: 'now', read: parseProductPage });

const rows = readManifest({ moreLabelsDir: values.labels && path.resolve(values.labels) }).filter((r) => values.folder === undefined || r.folder === values.folder);
const scores = readers.map((r) => ({ name: r.name, pages: scorePages(rows, r.read) }));
const names = scores.map((s) => s.name);
const last = scores.at(-1)!;

console.log(`## Every field (${rows.length} labelled pages${values.folder ? ` of ${values.folder}` : ''})\n`);
console.log(markdownTable(['field', ...names], [
  ...ALL_FIELDS.map((f) => [f, ...scores.map((s) => showTally(tally(s.pages, f)))]),
  ['**all**', ...scores.map((s) => showTally(tally(s.pages, null)))],
]));

for (const grouping of Object.keys(GROUPINGS) as Grouping[]) {
  const groups = scores.map((s) => groupPages(s.pages, grouping));
  console.log(`\n## By ${grouping}\n`);
  console.log(markdownTable([grouping, 'pages', ...names], [...groups[0]!.keys()].map((key) => [
    key,
    String(groups[0]!.get(key)!.length),
    ...groups.map((g) => showTally(tally(g.get(key) ?? [], null))),
  ])));
}

const perField = (grouping: Grouping): void => {
  const groups = groupPages(last.pages, grouping);
  const cell = (pages: readonly PageScore[], f: (typeof ALL_FIELDS)[number]): string => {
    const t = tally(pages, f);
    return t.total === 0 ? '–' : `${t.exact}/${t.total}`;
  };
  console.log(`\n## Every field by ${grouping} (${last.name}; exact/counted)\n`);
  console.log(markdownTable(['field', ...groups.keys()], ALL_FIELDS.map((f) => [f, ...[...groups.values()].map((pages) => cell(pages, f))])));
};
perField('marketplace');
perField('year');
