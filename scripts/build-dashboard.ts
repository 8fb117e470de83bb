/**
 * Builds the dashboard (dashboard/vite.config.ts: Vite, output in dist/dashboard) and prints the
 * size of its first load: the JavaScript that index.html loads (its module script and the
 * modules it preloads), gzipped, against the goal of 200 KB. Exits 1 above the goal.
 * Run by `npm run build`, and by the bootstrap of `npm start` / `npm test` when dashboard/ is
 * newer than the build (scripts/bootstrap.mjs).
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const root = path.resolve(import.meta.dirname, '..');
const outDir = path.join(root, 'dist', 'dashboard');
/** Goal of the first load, gzipped JavaScript, in KB (1000 bytes, as Vite prints them). */
const GOAL_KB = 200;

await build({ configFile: path.join(root, 'dashboard', 'vite.config.ts'), logLevel: process.argv.includes('--quiet') ? 'warn' : 'info' });

const html = fs.readFileSync(path.join(outDir, 'index.html'), 'utf8');
const scripts = [...html.matchAll(/<(?:script[^>]*type="module"[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="\/app\/([^"]+)"/g)].map((m) => m[1]!);
const kb = (bytes: number) => (bytes / 1000).toFixed(2);
let raw = 0;
let gzipped = 0;
for (const file of scripts) {
  const bytes = fs.readFileSync(path.join(outDir, file));
  raw += bytes.length;
  gzipped += gzipSync(bytes, { level: 9 }).length;
}
process.stdout.write(`dashboard: first load ${kb(gzipped)} KB gzipped JS (${kb(raw)} KB raw, ${scripts.length} file${scripts.length === 1 ? '' : 's'}); goal < ${GOAL_KB} KB\n`);
if (scripts.length === 0 || gzipped / 1000 >= GOAL_KB) {
  process.stderr.write(scripts.length === 0 ? 'dashboard: index.html loads no module script\n' : `dashboard: the first load is over the ${GOAL_KB} KB goal\n`);
  process.exit(1);
}
