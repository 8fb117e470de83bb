/** Starting one of the floor's readers (bench/floor-readers.ts) in a process of its own. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FloorAnswer, FloorJob } from './floor-readers.js';

/**
 * Runs bench/floor-readers.ts on `job` in a child process, so that its CPU (and its Chromium's)
 * counts apart from the caller's.
 * @throws Error when the reader exits with a failure (its output in the message).
 */
export function runFloorReader(job: FloorJob): Promise<FloorAnswer> {
  const script = fileURLToPath(new URL('./floor-readers.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify(job));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${job.mode} reader failed (exit ${code}): ${out}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!) as FloorAnswer);
    });
  });
}
