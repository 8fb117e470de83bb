/**
 * docker-compose.yml describes a valid production topology (issue: runs at scale). No container
 * engine runs here, so the file is validated with Debian's docker-compose (`config -q`), which
 * the bootstrap in front of `npm test` installs (scripts/bootstrap.mjs --test-tools).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { repoRoot } from '../support/env.js';
import { describeNeeding, dockerCompose } from '../support/prerequisites.js';

const compose = dockerCompose.path;

describeNeeding([dockerCompose], 'docker-compose.yml', () => {
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
