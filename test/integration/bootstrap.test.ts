/**
 * scripts/bootstrap.mjs on a machine that lacks things, emulated for real: a private mount
 * namespace hides Chromium (`/usr/bin/chromium` and the headless shell become device nodes) and Go
 * (`/usr/local/go` becomes an empty tmpfs), HOME is empty (no ~/go/bin), and the bootstrap runs
 * from a copy of the project holding only package.json, so its npm steps have nothing to do. Needs
 * root and util-linux's `unshare` and `setpriv` (CI runs as root).
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot } from '../support/env.js';
import { describeNeeding, inCi, type Prerequisite } from '../support/prerequisites.js';

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;
const hasTool = (name: string) => ['/usr/bin', '/bin', '/usr/sbin', '/sbin'].some((dir) => fs.existsSync(path.join(dir, name)));
const namespaces: Prerequisite = {
  name: 'mount namespaces',
  missing: !isRoot ? 'the emulation of a bare machine needs root (private mount namespace)' : !hasTool('unshare') || !hasTool('setpriv') ? 'util-linux unshare/setpriv not installed' : null,
};

interface Outcome { code: number; stdout: string; stderr: string }

describeNeeding([namespaces], 'bootstrap on a machine without Chromium, Go or the Temporal CLI', () => {
  let project = '';
  let home = '';

  beforeAll(() => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-boot-'));
    fs.chmodSync(tmp, 0o755);
    project = path.join(tmp, 'project');
    home = path.join(tmp, 'home');
    fs.mkdirSync(path.join(project, 'scripts'), { recursive: true });
    fs.mkdirSync(home);
    fs.copyFileSync(path.join(repoRoot, 'scripts/bootstrap.mjs'), path.join(project, 'scripts/bootstrap.mjs'));
    fs.copyFileSync(path.join(repoRoot, 'package.json'), path.join(project, 'package.json'));
  });
  afterAll(() => fs.rmSync(path.dirname(project), { recursive: true, force: true }));

  /** Runs the bootstrap with `args` inside the emulated machine, as root or as `nobody`. */
  async function bootstrap(args: string[], opts: { asRoot: boolean; env?: Record<string, string>; keepFullChromium?: boolean }): Promise<Outcome> {
    const shell = ['/usr/bin/chromium-headless-shell', '/usr/lib/chromium/chromium-headless-shell'];
    const chromium = opts.keepFullChromium ? shell : ['/usr/bin/chromium', '/usr/bin/google-chrome', ...shell];
    const hide = [
      ...[...chromium, '/usr/bin/docker-compose'].filter((p) => fs.existsSync(p)).map((p) => `mount --bind /dev/null ${p}`),
      ...(fs.existsSync('/usr/local/go') ? ['mount -t tmpfs none /usr/local/go'] : []),
    ];
    const user = opts.asRoot ? '' : 'setpriv --reuid=65534 --regid=65534 --clear-groups ';
    const quoted = [process.execPath, path.join(project, 'scripts/bootstrap.mjs'), ...args].map((a) => `'${a}'`).join(' ');
    const script = [...hide, `exec ${user}${quoted}`].join(' && ');
    const env = { PATH: '/usr/bin:/bin:/usr/sbin:/sbin', HOME: home, ...opts.env };
    try {
      const { stdout, stderr } = await run('unshare', ['-m', 'sh', '-c', script], { env, cwd: project, encoding: 'utf8' });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  it('without root and without Go: stops before any step, naming the exact commands', async () => {
    const r = await bootstrap(['--', 'true'], { asRoot: false });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('nothing was installed');
    expect(r.stderr).toContain('`sudo apt-get install -y chromium-headless-shell chromium`');
    expect(r.stderr).toContain('go install github.com/temporalio/cli/cmd/temporal@v1.5.1');
    expect(r.stderr).not.toMatch(/\.\.\.\n/); // no step started
  });

  it('npm test under CI=true without root: docker-compose is named with its command too, before any step', async () => {
    const r = await bootstrap(['--test-tools', '--', 'true'], { asRoot: false, env: { CI: 'true' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('`sudo apt-get install -y docker-compose`');
    expect(r.stderr).not.toMatch(/\.\.\.\n/);
  });

  it('npm test outside CI without root: a missing docker-compose only warns that its test will be skipped', async () => {
    const r = await bootstrap(['--test-tools', '--', 'true'], { asRoot: false, env: { TEMPORAL_ADDRESS: '127.0.0.1:7233', BROWSER_WS_ENDPOINTS: 'ws://127.0.0.1:3001' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('docker-compose.yml test will be skipped');
  });

  it('without root, with full Chromium but not its headless shell: reads can run, and the command to install the shell is named', async (ctx) => {
    if (!fs.existsSync('/usr/bin/chromium')) {
      // The bootstrap installs full Chromium beside the shell as root; a machine may have the shell alone.
      if (inCi) throw new Error('prerequisite missing under CI=true: /usr/bin/chromium');
      ctx.skip('full Chromium is not installed (/usr/bin/chromium)');
    }
    const r = await bootstrap(['--', 'true'], { asRoot: false, keepFullChromium: true, env: { TEMPORAL_ADDRESS: '127.0.0.1:7233' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('reads run on full Chromium');
    expect(r.stderr).toContain('`sudo apt-get install -y chromium-headless-shell`');
  });

  it('as root without Go: Chromium could be installed, but nothing starts while Go is missing', async () => {
    const r = await bootstrap(['--', 'true'], { asRoot: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Temporal CLI v1.5.1');
    expect(r.stderr).not.toContain('Chromium:');
    expect(r.stderr).not.toContain('apt-get');
    expect(r.stderr).not.toMatch(/\.\.\.\n/);
  });

  it('TEMPORAL_ADDRESS and BROWSER_WS_ENDPOINTS need neither tool; the command runs with the project Node first on PATH and its exit code', async () => {
    // As root: the project's Node may sit below a directory only its owner can enter (a checkout in
    // a private temporary folder), where another user's shell would pass over it on PATH.
    const r = await bootstrap(['--', 'sh', '-c', 'command -v node; exit 7'], { asRoot: true, env: { TEMPORAL_ADDRESS: '127.0.0.1:7233', BROWSER_WS_ENDPOINTS: 'ws://127.0.0.1:3001' } });
    expect(r.code).toBe(7);
    expect(r.stdout.trim()).toBe(process.execPath);
    expect(r.stderr).toBe('');
  });

  it('--no-tools checks neither tool', async () => {
    const r = await bootstrap(['--no-tools', '--', 'true'], { asRoot: false });
    expect(r).toMatchObject({ code: 0, stderr: '' });
  });

  it('what the bootstrap writes is ignored by git', () => {
    const written = ['.tools/bin/temporal', '.tools/logs/deps.log', 'node_modules/x', 'prisma/generated/client/client.ts', 'data/pglite'];
    const ignored = execFileSync('git', ['check-ignore', ...written], { cwd: repoRoot, encoding: 'utf8' }).trim().split('\n');
    expect(ignored).toEqual(written);
    expect(execFileSync('git', ['ls-files', '.tools', 'node_modules', 'prisma/generated', 'data'], { cwd: repoRoot, encoding: 'utf8' })).toBe('');
  });
});
