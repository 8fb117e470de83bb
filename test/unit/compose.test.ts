/**
 * docker-compose.yml describes a valid production topology (issue: runs at scale). No container
 * engine runs here, so the file is validated with Debian's docker-compose (`config -q`), which
 * .ci/run installs.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/env.js';

const compose = ['/usr/bin/docker-compose', '/usr/local/bin/docker-compose'].find((p) => fs.existsSync(p));

describe.skipIf(!compose)('docker-compose.yml (needs docker-compose; .ci/run installs it)', () => {
  it('validates and has every service of the topology', async () => {
    const file = path.join(repoRoot, 'docker-compose.yml');
    await promisify(execFile)(compose!, ['-f', file, 'config', '-q']);
    const { stdout } = await promisify(execFile)(compose!, ['-f', file, 'config', '--services']);
    expect(stdout.trim().split('\n').sort()).toEqual(['api', 'chrome', 'migrate', 'postgres', 'temporal', 'temporal-ui', 'worker']);
    const { stdout: full } = await promisify(execFile)(compose!, ['-f', file, 'config']);
    expect(full).toContain('dist/api/server.js');
    expect(full).toContain('dist/worker/main.js');
  });
});
