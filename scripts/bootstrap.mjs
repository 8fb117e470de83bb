#!/usr/bin/env node
// Fresh-machine bootstrap in front of every npm script: `node scripts/bootstrap.mjs [--no-tools] [-- command...]`.
// Plain Node with no dependencies, because it runs before they are installed, on whatever Node the
// machine has (it needs only Node 18+ itself).
//
// 1. Cheap checks first, before anything slow starts: the Node version `engines` asks for, npm, tar,
//    and (unless --no-tools) the Temporal CLI or Go to build it, and Chromium or the right to install
//    it (root with apt-get); with --test-tools (npm test) also docker-compose. Whatever cannot be provided stops the bootstrap at once, naming the
//    exact command to run.
// 2. The slow steps that remain run at the same time, each with a start line and a done line with
//    its duration (their own output goes to .tools/logs/<step>.log, shown when a step fails):
//      node      Node.js NODE_VERSION from the npm registry's node-<platform>-<arch> package into
//                .tools/, when the machine's Node is older than `engines` (the machine keeps its own);
//      deps      `npm ci` (after `node`), then `prisma generate`;
//      dashboard with --dashboard (npm start, npm test): `vite build` of dashboard/ into dist/dashboard
//                (scripts/build-dashboard.ts, after `deps`) when a file of dashboard/, schema.graphql
//                or package-lock.json is newer than dist/dashboard/index.html;
//      temporal  the Temporal CLI, `go install github.com/temporalio/cli/cmd/temporal@v1.5.1` into .tools/bin;
//      apt       Debian's packages through apt-get, in one step (apt holds one lock): `chromium-headless-shell`
//                (what reads run on) and `chromium`, and
//                with --test-tools `docker-compose`, which validates docker-compose.yml in the tests
//                (no container engine is needed for that).
// 3. Runs the command after `--` with the project's Node and node_modules/.bin first on PATH, and
//    exits with its exit code (signals are passed on).
// Everything it writes is ignored by git (.tools/, node_modules/, prisma/generated/).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dashDash = process.argv.indexOf('--');
const flags = process.argv.slice(2, dashDash === -1 ? undefined : dashDash);
const command = dashDash === -1 ? [] : process.argv.slice(dashDash + 1);
const noTools = flags.includes('--no-tools');
const testTools = flags.includes('--test-tools');
const withDashboard = flags.includes('--dashboard');
const env = process.env;

/** The Node.js release installed when the machine's own is older than `engines` (an LTS line). */
const NODE_VERSION = '24.21.0';
const TEMPORAL_VERSION = 'v1.5.1';
const TEMPORAL_MODULE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_VERSION}`;
const toolsDir = path.join(root, '.tools');
const logDir = path.join(toolsDir, 'logs');

const log = (msg) => process.stderr.write(`[bootstrap] ${msg}\n`);
const seconds = (t0) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
const mtime = (p) => { try { return fs.statSync(p).mtimeMs; } catch { return 0; } };
/** Newest modification time of a file under `dir` (recursively), 0 when it does not exist. */
const newestUnder = (dir) => {
  try {
    return Math.max(0, ...fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => mtime(path.join(e.parentPath ?? e.path, e.name))));
  } catch { return 0; }
};
const executable = (p) => { try { fs.accessSync(p, fs.constants.X_OK); return fs.statSync(p).isFile(); } catch { return false; } };
const which = (name) => (env.PATH ?? '').split(path.delimiter).filter(Boolean).map((d) => path.join(d, name)).find(executable) ?? null;

// ---- 1. cheap checks -------------------------------------------------------------------------

/** `engines.node` of package.json as [major, minor, patch]; only the `>=X.Y[.Z]` form is used here. */
function engineMinimum() {
  const range = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).engines?.node ?? '';
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!m) throw new Error(`package.json engines.node must read ">=X.Y.Z" (got "${range}")`);
  return { range, min: [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] };
}
const satisfies = (version, min) => {
  const v = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) if (v[i] !== min[i]) return v[i] > min[i];
  return true;
};

const missing = [];
const { range: engineRange, min: engineMin } = engineMinimum();
const nodeDir = path.join(toolsDir, `node-v${NODE_VERSION}-${process.platform}-${process.arch}`);
const nodeNeeded = !satisfies(process.version, engineMin);
const nodeBin = nodeNeeded ? path.join(nodeDir, 'bin', 'node') : process.execPath;
const nodeMissing = nodeNeeded && !executable(nodeBin);
// npm's own entry script, run with the project's Node so that npm checks engines against it.
const npmCli = env.npm_execpath && /npm-cli\.c?js$/.test(env.npm_execpath) ? env.npm_execpath
  : (() => { const npm = which('npm'); return npm ? path.join(path.dirname(fs.realpathSync(npm)), 'npm-cli.js') : null; })();
if (!npmCli || !fs.existsSync(npmCli)) missing.push('npm: not found next to Node (install Node.js with npm: `apt-get install -y nodejs npm`)');
if (nodeMissing && !which('tar')) missing.push('tar: needed to unpack Node.js (run `apt-get install -y tar`)');

const depsStamp = path.join(root, 'node_modules', '.package-lock.json');
const depsNeeded = mtime(path.join(root, 'package-lock.json')) > mtime(depsStamp);
const prismaClient = path.join(root, 'prisma', 'generated', 'client', 'client.ts');
const generateNeeded = depsNeeded || mtime(path.join(root, 'prisma', 'schema.prisma')) > mtime(prismaClient);

const toolsBin = path.join(toolsDir, 'bin');
let temporalGo = null;
if (!noTools && !env.TEMPORAL_ADDRESS) {
  const candidates = [env.TEMPORAL_CLI_PATH, which('temporal'), path.join(toolsBin, 'temporal'), path.join(os.homedir(), 'go', 'bin', 'temporal')];
  if (!candidates.filter(Boolean).some(executable)) {
    temporalGo = which('go') ?? (executable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null);
    if (!temporalGo) {
      missing.push(`Temporal CLI ${TEMPORAL_VERSION}: not on PATH, in .tools/bin or ~/go/bin, and no Go to build it. Either install Go ` +
        `(https://go.dev/doc/install; Go 1.21+ fetches the toolchain the CLI needs), or run \`go install ${TEMPORAL_MODULE}\` on a machine ` +
        'with Go and put `temporal` on PATH, or set TEMPORAL_ADDRESS to a Temporal cluster');
    }
  }
}

/** Debian packages to install in the `apt` step. */
const aptPackages = [];
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const canApt = isRoot && which('apt-get') !== null;
if (!noTools && !env.BROWSER_WS_ENDPOINTS) {
  // Reads run on Chromium's headless shell when it is there (worker/browser/chrome-path.ts says why),
  // else on full Chromium; the benchmarks' plain puppeteer script runs on full Chromium.
  const shell = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium-headless-shell', which('chromium-headless-shell')].filter(Boolean).find(executable);
  const full = ['/usr/bin/chromium', which('chromium'), which('google-chrome')].filter(Boolean).find(executable);
  if (env.CHROME_PATH) {
    if (!executable(env.CHROME_PATH)) missing.push(`Chromium: CHROME_PATH=${env.CHROME_PATH} is not an executable file`);
  } else if (canApt) {
    if (!shell) aptPackages.push('chromium-headless-shell');
    if (!full) aptPackages.push('chromium');
  } else if (!shell && !full) {
    missing.push('Chromium: not installed, and this bootstrap installs it only as root with apt-get. Run ' +
      '`sudo apt-get install -y chromium-headless-shell chromium` (Debian/Ubuntu), or set CHROME_PATH to a Chrome/Chromium binary, or BROWSER_WS_ENDPOINTS to a browser grid');
  } else if (!shell) {
    log('reads run on full Chromium, at twice the CPU per read of its headless shell (`sudo apt-get install -y chromium-headless-shell`)');
  }
}

if (testTools && !['/usr/bin/docker-compose', '/usr/local/bin/docker-compose'].some(executable) && !which('docker-compose')) {
  if (canApt) aptPackages.push('docker-compose');
  // Outside CI the compose test is skipped with this reason; CI must not pass by skipping it.
  else if (env.CI === 'true') missing.push('docker-compose: not installed, and this bootstrap installs it only as root with apt-get. Run `sudo apt-get install -y docker-compose`');
  else log('docker-compose is not installed (`sudo apt-get install -y docker-compose`): the docker-compose.yml test will be skipped');
}

if (missing.length) {
  log('cannot start; nothing was installed. Missing:');
  for (const m of missing) log(`  - ${m}`);
  process.exit(1);
}

// ---- 2. slow steps, independent ones at the same time ---------------------------------------

const childPath = [path.dirname(nodeBin), path.join(root, 'node_modules', '.bin'), env.PATH].filter(Boolean).join(path.delimiter);
const childEnv = { ...env, PATH: childPath };

/** Runs one command of a step, its output appended to the step's log; rejects naming the log. */
function runLogged(step, cmd, args, opts = {}) {
  fs.mkdirSync(logDir, { recursive: true });
  const file = path.join(logDir, `${step}.log`);
  const out = fs.openSync(file, 'a');
  fs.writeSync(out, `$ ${cmd} ${args.join(' ')}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, env: childEnv, stdio: ['ignore', out, out], ...opts });
    child.on('error', (error) => { fs.closeSync(out); reject(new Error(`${cmd}: ${error.message} (log: ${file})`)); });
    child.on('exit', (code, signal) => {
      fs.closeSync(out);
      if (code === 0) return resolve();
      const tail = fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-15).join('\n');
      reject(new Error(`\`${cmd} ${args.join(' ')}\` failed (${signal ?? `exit ${code}`}); last lines of ${file}:\n${tail}`));
    });
  });
}

/** One named step: a start line, a done line with its duration, or the reason it failed. */
async function step(name, what, body) {
  const t0 = performance.now();
  log(`${name}: ${what}...`);
  fs.rmSync(path.join(logDir, `${name}.log`), { force: true });
  await body();
  log(`${name}: done in ${seconds(t0)}`);
}

async function installNode() {
  const pkg = `node-${process.platform}-${process.arch}@${NODE_VERSION}`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-node-'));
  try {
    // npm verifies the tarball against the registry's integrity record.
    await runLogged('node', process.execPath, [npmCli, 'pack', pkg, '--pack-destination', tmp, '--silent']);
    const tarball = fs.readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${pkg} produced no tarball`);
    const partial = `${nodeDir}.partial`;
    fs.rmSync(partial, { recursive: true, force: true });
    fs.mkdirSync(partial, { recursive: true });
    await runLogged('node', 'tar', ['xzf', path.join(tmp, tarball), '-C', partial, '--strip-components=1']);
    const version = spawnSync(path.join(partial, 'bin', 'node'), ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (version !== `v${NODE_VERSION}`) throw new Error(`the unpacked Node.js reports "${version}", expected v${NODE_VERSION}`);
    fs.renameSync(partial, nodeDir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function installDeps() {
  if (nodeMissing) await step('node', `Node.js ${NODE_VERSION} into .tools (this machine has ${process.version}; engines: ${engineRange})`, installNode);
  if (depsNeeded) await step('deps', 'npm ci', () => runLogged('deps', nodeBin, [npmCli, 'ci', '--no-audit', '--no-fund']));
  if (generateNeeded) {
    // The schema engine binary is not needed to generate; point it at any file.
    await step('prisma', 'prisma generate', () => runLogged('prisma', nodeBin, [path.join(root, 'node_modules', 'prisma', 'build', 'index.js'), 'generate'], {
      env: { ...childEnv, PRISMA_SCHEMA_ENGINE_BINARY: env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
    }));
  }
  if (withDashboard) {
    const built = mtime(path.join(root, 'dist', 'dashboard', 'index.html'));
    const sources = Math.max(newestUnder(path.join(root, 'dashboard')), mtime(path.join(root, 'schema.graphql')), mtime(path.join(root, 'package-lock.json')));
    if (sources > built) {
      await step('dashboard', 'vite build of dashboard/ into dist/dashboard', () => runLogged('dashboard', nodeBin, ['--import', 'tsx', path.join(root, 'scripts', 'build-dashboard.ts'), '--quiet']));
    }
  }
}

const steps = [installDeps()];
if (temporalGo) {
  steps.push(step('temporal', `Temporal CLI ${TEMPORAL_VERSION} into .tools/bin with go install (a few minutes, once)`, async () => {
    fs.mkdirSync(toolsBin, { recursive: true });
    await runLogged('temporal', temporalGo, ['install', TEMPORAL_MODULE], { cwd: os.tmpdir(), env: { ...childEnv, GOBIN: toolsBin } });
  }));
}
if (aptPackages.length) {
  steps.push(step('apt', `Debian's ${aptPackages.join(', ')} with apt-get`, async () => {
    const aptEnv = { ...childEnv, DEBIAN_FRONTEND: 'noninteractive' };
    await runLogged('apt', 'apt-get', ['update', '-qq'], { env: aptEnv });
    await runLogged('apt', 'apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...aptPackages], { env: aptEnv });
  }));
}
const t0 = performance.now();
const results = await Promise.allSettled(steps);
const failed = results.filter((r) => r.status === 'rejected');
if (failed.length) {
  log('set-up failed:');
  for (const f of failed) log(`  - ${f.reason.message.replaceAll('\n', '\n      ')}`);
  process.exit(1);
}
if (nodeMissing || depsNeeded || generateNeeded || temporalGo || aptPackages.length) log(`set-up done in ${seconds(t0)}`);

// ---- 3. the command --------------------------------------------------------------------------

if (command.length) {
  const child = spawn(command[0], command.slice(1), { cwd: process.cwd(), env: childEnv, stdio: 'inherit' });
  // Ctrl-C reaches the whole foreground process group, the command included: wait for it to stop.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  process.on('SIGHUP', () => child.kill('SIGHUP'));
  child.on('error', (error) => { log(`${command[0]}: ${error.message}`); process.exit(127); });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1)));
}
