/** The CPU profiler switch of the benchmarks (BENCH_CPU_PROFILE). */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

/**
 * Runs `fn`; when BENCH_CPU_PROFILE names a folder, records a V8 CPU profile of this process (the
 * service: API, worker, PGlite) meanwhile and writes it there as `<name>.cpuprofile`
 * (summarise it with bench/profile-summary.ts).
 */
export async function withCpuProfile<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${name}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    console.log(`  CPU profile of the service written to ${file}`);
    session.disconnect();
  }
}
