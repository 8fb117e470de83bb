/**
 * `npm run docs:folders [-- --write]`: the folder map of docs/architecture.md (between
 * `<!-- folder-map:start -->` and `<!-- folder-map:end -->`) for the tree as it is: every source
 * folder, with the purpose the map already gives it, or `TODO` for a folder the map lacks.
 * Prints the table; `--write` puts it into docs/architecture.md. test/unit/docs.test.ts fails
 * when the map and the tree disagree.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FOLDER_MAP_START = '<!-- folder-map:start -->';
export const FOLDER_MAP_END = '<!-- folder-map:end -->';
export const repoRoot = fileURLToPath(new URL('../', import.meta.url));
export const architectureDoc = path.join(repoRoot, 'docs/architecture.md');

/** The top-level folders the map covers. */
export const MAPPED_ROOTS = ['api', 'core', 'worker', 'workflows', 'bench', 'replay', 'scripts', 'prisma', 'test', 'dashboard'];
/** Folders left out with everything below them: built output, and one folder per migration. */
const SKIPPED = [/^prisma\/generated$/, /^prisma\/migrations\/[^/]+$/, /(^|\/)node_modules$/, /(^|\/)\./];

/** Every folder of the map's roots, as `api/rest` (no trailing slash), sorted. */
export function sourceFolders(root = repoRoot): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    if (SKIPPED.some((re) => re.test(rel))) return;
    out.push(rel);
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      if (entry.isDirectory()) walk(`${rel}/${entry.name}`);
    }
  };
  for (const top of MAPPED_ROOTS) if (fs.existsSync(path.join(root, top))) walk(top);
  return out.sort();
}

/** The map's rows, folder → purpose, as written between the markers (`| \`api/rest/\` | … |`). */
export function folderMapIn(markdown: string): Map<string, string> | undefined {
  const start = markdown.indexOf(FOLDER_MAP_START);
  const end = markdown.indexOf(FOLDER_MAP_END);
  if (start < 0 || end < start) return undefined;
  const rows = new Map<string, string>();
  for (const line of markdown.slice(start, end).split('\n')) {
    const match = /^\|\s*`([^`]+?)\/?`\s*\|(.*)\|\s*$/.exec(line);
    if (match) rows.set(match[1]!, match[2]!.trim());
  }
  return rows;
}

/** The map for today's tree: known purposes kept, `TODO` for new folders, gone folders dropped. */
export function renderFolderMap(known: Map<string, string>, folders = sourceFolders()): string {
  const lines = ['| folder | purpose |', '|---|---|'];
  for (const folder of folders) lines.push(`| \`${folder}/\` | ${known.get(folder) || 'TODO'} |`);
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const markdown = fs.readFileSync(architectureDoc, 'utf8');
  const known = folderMapIn(markdown) ?? new Map<string, string>();
  const table = renderFolderMap(known);
  const folders = new Set(sourceFolders());
  const gone = [...known.keys()].filter((f) => !folders.has(f));
  if (process.argv.includes('--write')) {
    const start = markdown.indexOf(FOLDER_MAP_START);
    const end = markdown.indexOf(FOLDER_MAP_END);
    if (start < 0 || end < start) {
      console.error(`${architectureDoc} has no ${FOLDER_MAP_START} … ${FOLDER_MAP_END} section`);
      process.exit(1);
    }
    fs.writeFileSync(architectureDoc, `${markdown.slice(0, start + FOLDER_MAP_START.length)}\n${table}\n${markdown.slice(end)}`);
    console.log(`wrote ${folders.size} folders into docs/architecture.md`);
  } else {
    console.log(table);
  }
  if (gone.length) console.error(`dropped (no longer in the tree): ${gone.join(', ')}`);
  const todo = table.split('\n').filter((l) => l.endsWith('| TODO |')).length;
  if (todo) console.error(`${todo} folder(s) need a purpose: replace their TODO in docs/architecture.md`);
}
