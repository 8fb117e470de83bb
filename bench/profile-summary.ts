/**
 * Summarises a V8 CPU profile (`node --cpu-prof`): self time by package / project folder, and the
 * hottest functions, so a missed target names what limits it.
 *
 *   node --cpu-prof --cpu-prof-dir=data/prof --import tsx bench/api.ts --db postgres
 *   npx tsx bench/profile-summary.ts data/prof/<file>.cpuprofile [top=25]
 */
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** `node_modules/<pkg>` (scoped too), the project folder (`api/`, `core/`...), `node:` internals, or the V8 pseudo-frames. */
export function bucketOf(url: string, functionName: string): string {
  if (!url) return `(${functionName || 'native'})`;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return 'node internals';
  const m = /\/(api|core|worker|workflows|prisma|replay|scripts|bench|test)\//.exec(url);
  return m ? `project ${m[1]}/` : url;
}

function main(file: string, top: number): void {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = profile.endTime - profile.startTime;
  const buckets = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    const bucket = bucketOf(url, functionName);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + us);
    const fn = `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/main\//, '')}:${lineNumber + 1}` : ''}`;
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  }
  const pct = (us: number): string => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
  console.log(`profile ${file}: ${(total / 1e6).toFixed(1)} s wall, ${profile.samples.length} samples`);
  console.log('\nself time by package / folder:');
  for (const [b, us] of [...buckets].sort((a, c) => c[1] - a[1]).slice(0, top)) console.log(`  ${pct(us)}  ${(us / 1e3).toFixed(0).padStart(7)} ms  ${b}`);
  console.log('\nhottest functions (self time):');
  for (const [f, us] of [...functions].sort((a, c) => c[1] - a[1]).slice(0, top)) console.log(`  ${pct(us)}  ${(us / 1e3).toFixed(0).padStart(7)} ms  ${f}`);
}

const [file, top] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
main(file, Number(top ?? 25));
