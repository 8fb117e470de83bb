/**
 * Scores the search parser against the labelled search pages: `npx tsx scripts/golden/search-score.ts
 * [labels dir] [field] [page filter]`. Prints, per item field, the values exact / values, and (with a
 * field) each mismatch as page, position, field, expected, got. Labels default to
 * test/golden/search (the reconciled golden set).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { SEARCH_ITEM_FIELDS } from '../../core/search.js';
import { decodePage } from '../../worker/parser/index.js';
import { parseSearchPage } from '../../worker/parser/search/index.js';
import { repoRoot } from './dev-corpus.js';
import { searchLabelsDir, searchPages } from './search-corpus.js';

const dir = process.argv[2] ? path.resolve(process.argv[2]) : searchLabelsDir();
const only = process.argv[3] ?? '';
const pageFilter = process.argv[4] ?? '';
const score: Record<string, [number, number]> = {};
const bump = (f: string, ok: boolean): void => {
  const s = (score[f] ??= [0, 0]);
  s[1]++;
  if (ok) s[0]++;
};
for (const page of searchPages()) {
  if (pageFilter && !page.file.includes(pageFilter)) continue;
  const labelPath = path.join(dir, page.file.replace(/\.html$/, '.json'));
  if (!existsSync(labelPath)) continue;
  const label = JSON.parse(readFileSync(labelPath, 'utf8')) as { items: Record<string, unknown>[]; total_results: number | null; results_text: string | null; status: string };
  const got = parseSearchPage(decodePage(readFileSync(page.path)), page.marketplace);
  if (got.kind !== 'search') {
    console.log(`${page.file}: ${got.kind} ${got.reason}`);
    continue;
  }
  for (const f of ['status', 'total_results', 'results_text'] as const) {
    const ok = isDeepStrictEqual(got.fields[f], label[f]);
    bump(f, ok);
    if (!ok && (only === f || only === 'page')) console.log(`${page.file} ${f}: expected ${JSON.stringify(label[f])} got ${JSON.stringify(got.fields[f])}`);
  }
  bump('item count', got.fields.items.length === label.items.length);
  if (got.fields.items.length !== label.items.length && (only === 'count' || only === 'page'))
    console.log(`${page.file}: ${label.items.length} items expected, got ${got.fields.items.length}: ${got.fields.items.map((i) => i.asin).join(' ')} vs ${label.items.map((i) => String(i.asin)).join(' ')}`);
  label.items.forEach((exp, i) => {
    const item = got.fields.items[i] as unknown as Record<string, unknown> | undefined;
    for (const f of SEARCH_ITEM_FIELDS) {
      const ok = item !== undefined && isDeepStrictEqual(item[f], exp[f]);
      bump(f, ok);
      if (!ok && only === f) console.log(`${page.file} #${i + 1} ${f}: expected ${JSON.stringify(exp[f])} got ${JSON.stringify(item?.[f])}`);
    }
  });
}
console.log(`labels: ${path.relative(repoRoot, dir)}`);
let exact = 0;
let total = 0;
for (const [f, [ok, n]] of Object.entries(score)) {
  console.log(`${f.padEnd(18)} ${String(ok).padStart(5)} / ${String(n).padEnd(5)} ${((100 * ok) / n).toFixed(1)}%`);
  if ((SEARCH_ITEM_FIELDS as readonly string[]).includes(f)) {
    exact += ok;
    total += n;
  }
}
console.log(`item values exact: ${exact} / ${total} (${((100 * exact) / total).toFixed(1)}%)`);
