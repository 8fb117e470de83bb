/**
 * `npm run bench [-- <part>...] [--db pglite|postgres|both] [--write]`: every benchmark in turn,
 * each in its own process and, for the parts that run the service, once per database (PGlite, the
 * embedded default, and a scratch database on the real PostgreSQL at DATABASE_URL_TEST, default
 * postgresql://postgres@127.0.0.1:5432/test). Parts: parser, graphql, api, live, mcp (bench/mcp.ts: get_product
 * over /mcp beside REST live's cache hit), throughput,
 * floor (bench/floor-compare.ts: the service beside a puppeteer script and HTTP GET + parse5), history,
 * search-history (bench/search-history.ts: rank history of one keyword and ASIN among 1,000,000 search
 * observations, on PostgreSQL only), soak (bench/soak.ts, only when named: service RSS over BENCH_SOAK_MINUTES of saturated reads, default 30, split by heaps, parse threads, WASM and native memory), stats, bulk, proxies (default: all; parser, graphql, search-history and proxies run once, the first, second and last needing no database of their own). Ends with one table: each figure on both databases, their ratio measured in this
 * run, the target and PASS/MISS. `--write` also puts that table into BENCHMARKS.md.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DB_KINDS, DB_LABEL, dbKindsFromArgs, fmt, machineDescription, printHeader, targetText, verdict, type BenchResult, type DbKind } from './machine.js';

const PARTS = ['parser', 'graphql', 'api', 'live', 'mcp', 'throughput', 'floor', 'history', 'search-history', 'stats', 'bulk', 'proxies', 'soak'] as const;
/** Parts run only when named (`npm run bench -- soak`): the soak takes 30 minutes per database by default. */
const ON_REQUEST: readonly Part[] = ['soak'];
type Part = (typeof PARTS)[number];

const args = process.argv.slice(2);
const write = args.includes('--write');
const kinds = dbKindsFromArgs(args);
const named = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1] === '--db'));
for (const name of named) {
  if (!(PARTS as readonly string[]).includes(name)) {
    console.error(`unknown part "${name}" (parts: ${PARTS.join(', ')})`);
    process.exit(2);
  }
}
const parts: Part[] = named.length ? (named as Part[]) : PARTS.filter((p) => !ON_REQUEST.includes(p));
const here = path.dirname(fileURLToPath(import.meta.url));
const resultFile = path.join(os.tmpdir(), `rda-bench-${process.pid}.jsonl`);
fs.writeFileSync(resultFile, '');

/** Runs `bench/<file>` with tsx; echoes its output and returns it. */
function runScript(file: string, scriptArgs: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, file), ...scriptArgs], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, BENCH_RESULT_FILE: resultFile },
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      output += d;
      process.stdout.write(d);
    });
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** The parser benchmark is bench/parser.ts as it is; its figures are read from its output. */
function parserResults(output: string): BenchResult[] {
  const found: BenchResult[] = [];
  const ours = /parseProductPage\s+([\d.]+)\s+([\d.]+)/.exec(output);
  const bare = /parse5 parse\(html\)\s+([\d.]+)\s+([\d.]+)/.exec(output);
  const ratio = /ratio of medians:? ([\d.]+)x/.exec(output);
  const add = (metric: string, value: string | undefined, unit: string) => {
    if (value !== undefined) found.push({ part: 'parser', db: 'none', metric, value: Number(value), unit });
  };
  add('parseProductPage median per page', ours?.[1], 'ms');
  add('parseProductPage p95 per page', ours?.[2], 'ms');
  add('parse5 parse(html) median per page', bare?.[1], 'ms');
  add('parse5 parse(html) p95 per page', bare?.[2], 'ms');
  const computed = ours && bare ? (Number(ours[1]) / Number(bare[1])).toFixed(2) : undefined;
  add('ratio of medians (ours / parse5)', ratio?.[1] ?? computed, '×');
  return found;
}

const started = performance.now();
const failures: string[] = [];
const parserRows: BenchResult[] = [];
for (const part of parts) {
  const t = performance.now();
  if (part === 'parser') {
    printHeader('parser (bench/parser.ts)');
    const { code, output } = await runScript('parser.ts', []);
    if (code !== 0) failures.push(`parser (exit ${code})`);
    parserRows.push(...parserResults(output));
  } else if (part === 'graphql' || part === 'proxies' || part === 'search-history') {
    // The refusals it measures run no SQL, the page reads store nothing: once; search-history is
    // PostgreSQL's (a scratch database of a million rows); each reports through BENCH_RESULT_FILE.
    const { code } = await runScript(`${part}.ts`, []);
    if (code !== 0) failures.push(`${part} (exit ${code})`);
  } else {
    // One process per database: nothing of the first service (timers, pools) lingers into the second.
    for (const kind of kinds) {
      const { code } = await runScript(`${part === 'floor' ? 'floor-compare' : part}.ts`, ['--db', kind]);
      if (code !== 0) failures.push(`${part} on ${DB_LABEL[kind]} (exit ${code})`);
    }
  }
  console.log(`  [${part} took ${((performance.now() - t) / 1000).toFixed(0)} s]`);
}

let rows: BenchResult[] = [
  ...parserRows,
  ...fs.readFileSync(resultFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as BenchResult),
];
fs.rmSync(resultFile, { force: true });

/** The summary as a Markdown table: one line per figure, a column per database, ratio, target, verdicts. */
function summary(): string {
  const out: string[] = [];
  out.push(`Machine: ${machineDescription()}.`);
  out.push(`Last run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, parts: ${parts.join(', ')} on ${kinds.map((k) => DB_LABEL[k]).join(' and ')}; ${((performance.now() - started) / 60_000).toFixed(1)} min.`);
  out.push('');
  const shown = DB_KINDS.filter((k) => rows.some((r) => r.db === k));
  const cols = shown.map((k) => DB_LABEL[k]);
  const both = shown.length === 2;
  out.push(`| part | figure | ${cols.join(' | ')} |${both ? ' PostgreSQL / PGlite |' : ''} target | verdict | other load |`);
  out.push(`|---|---|${cols.map(() => '---:').join('|')}|${both ? '---:|' : ''}---|---|---:|`);
  const keys: string[] = [];
  for (const r of rows) if (!keys.includes(`${r.part}\u0000${r.metric}`)) keys.push(`${r.part}\u0000${r.metric}`);
  for (const key of keys) {
    const [part, metric] = key.split('\u0000') as [string, string];
    const of = (db: DbKind | 'none') => rows.find((r) => r.part === part && r.metric === metric && r.db === db);
    const any = rows.find((r) => r.part === part && r.metric === metric)!;
    const digits = Math.abs(any.value) < 10 && any.unit !== 'req/s' ? 2 : 1;
    const cell = (r: BenchResult | undefined) => (r ? `${fmt(r.value, digits)} ${r.unit}` : '');
    if (any.db === 'none') {
      const noneVerdict = verdict(any.value, any.target, 'none');
      out.push(`| ${part} | ${metric.trim()} | ${cell(any)} |${shown.length > 1 ? ' |'.repeat(shown.length - 1) : ''}${both ? ' |' : ''} ${targetText(any.target, any.unit)} | ${noneVerdict} | |`);
      continue;
    }
    const values = shown.map((k) => of(k));
    const ratio = both && values[0] && values[1] && values[0].value && Number.isFinite(values[0].value) && Number.isFinite(values[1].value) ? `${(values[1].value / values[0].value).toFixed(2)}×` : '';
    const verdicts = shown.map((k) => { const r = of(k); const v = r ? verdict(r.value, r.target, k) : ''; return v ? `${DB_LABEL[k]} ${v}` : ''; }).filter(Boolean).join(', ');
    const other = shown.map((k) => of(k)?.otherCpu).filter((x): x is number => x !== undefined);
    out.push(`| ${part} | ${metric.trim()} | ${values.map(cell).join(' | ')} |${both ? ` ${ratio} |` : ''} ${targetText(any.target, any.unit)} | ${verdicts} | ${other.length ? other.map((x) => `${x}%`).join(' / ') : ''} |`);
  }
  out.push('');
  out.push('"other load": share of the machine\'s CPU used by processes outside the benchmark while that figure was measured (per database, in column order).');
  return out.join('\n');
}

const mdFile = path.resolve(here, '../BENCHMARKS.md');
const BEGIN = '<!-- bench:results:begin -->';
const END = '<!-- bench:results:end -->';
const ROWS = /<!-- bench:rows (.*?) -->/s;
if (write && fs.existsSync(mdFile)) {
  // Keep the figures of parts / databases this run did not measure, from the table written last time.
  const previous = ROWS.exec(fs.readFileSync(mdFile, 'utf8'));
  if (previous) {
    const measured = new Set(rows.map((r) => `${r.part}/${r.db}`));
    const kept = (JSON.parse(previous[1]!) as BenchResult[]).filter((r) => !measured.has(`${r.part}/${r.db}`));
    rows = [...kept, ...rows].sort((a, b) => PARTS.indexOf(a.part as Part) - PARTS.indexOf(b.part as Part));
  }
}

const table = summary();
console.log('\n=== summary ===');
console.log(table);
if (failures.length) console.log(`\nFAILED: ${failures.join(', ')}`);

if (write) {
  const text = fs.existsSync(mdFile) ? fs.readFileSync(mdFile, 'utf8') : `# Benchmarks\n\n${BEGIN}\n${END}\n`;
  const i = text.indexOf(BEGIN);
  const j = text.indexOf(END);
  if (i < 0 || j < i) {
    console.error(`BENCHMARKS.md has no ${BEGIN} … ${END} section; not written`);
  } else {
    const data = `<!-- bench:rows ${JSON.stringify(rows).replace(/--/g, '\\u002d\\u002d')} -->`;
    fs.writeFileSync(mdFile, `${text.slice(0, i + BEGIN.length)}\n${table}\n\n${data}\n${text.slice(j)}`);
    console.log(`\nwrote the table into ${mdFile}`);
  }
}
process.exit(failures.length ? 1 : 0);
