/**
 * `npm run bench`: every benchmark in turn. The parser benchmark exists now; the API, live,
 * throughput and history benchmarks arrive with the benchmark issue.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const benches = ['parser.ts'];
for (const file of benches) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(file, import.meta.url))], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
