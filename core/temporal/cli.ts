/**
 * Locating the Temporal CLI (v1.5.1) that runs the embedded dev server: TEMPORAL_CLI_PATH, then
 * `temporal` on PATH, then `.tools/bin/temporal` (built by scripts/bootstrap.mjs with `go install`),
 * then `~/go/bin/temporal`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Candidate paths in search order. */
export function temporalCliCandidates(explicit?: string, envPath: string = process.env.PATH ?? ''): string[] {
  const onPath = envPath.split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, 'temporal'));
  return [
    ...(explicit ? [explicit] : []),
    ...onPath,
    path.join(repoRoot, '.tools', 'bin', 'temporal'),
    path.join(os.homedir(), 'go', 'bin', 'temporal'),
  ];
}

/**
 * The first executable Temporal CLI.
 * @throws Error naming every path tried and how to provision one.
 */
export function findTemporalCli(explicit?: string): string {
  const candidates = temporalCliCandidates(explicit);
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      /* try the next */
    }
  }
  throw new Error(
    `Temporal CLI not found (tried: ${candidates.join(', ')}). Run \`node scripts/bootstrap.mjs\` with Go installed ` +
      '(it runs `go install github.com/temporalio/cli/cmd/temporal@v1.5.1` into .tools/bin), or set TEMPORAL_CLI_PATH / TEMPORAL_ADDRESS.',
  );
}
