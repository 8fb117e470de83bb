#!/usr/bin/env node
// Fresh-machine bootstrap, run before `npm start`, `npm test`, `npm run build`, `npm run bench`.
// Plain Node with no dependencies (it runs before they are installed):
//   1. installs npm dependencies when node_modules is missing or older than package-lock.json;
//   2. generates the Prisma client when missing or older than prisma/schema.prisma;
//   3. (unless --no-tools) provisions the Temporal CLI v1.5.1 — on PATH, else .tools/bin, else
//      built there with `go install` when Go is present — and finds Chromium;
// and says plainly what is missing when something cannot be provisioned (exit code 1).
// It reads only the few environment variables that decide whether a tool is needed at all.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const noTools = process.argv.includes('--no-tools');
const env = process.env;
const TEMPORAL_VERSION = 'v1.5.1';
const log = (msg) => process.stderr.write(`[bootstrap] ${msg}\n`);
const mtime = (p) => { try { return fs.statSync(p).mtimeMs; } catch { return 0; } };
const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
};
const which = (name) => {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const p = path.join(dir, name);
    try { fs.accessSync(p, fs.constants.X_OK); return p; } catch { /* next */ }
  }
  return null;
};
const executable = (p) => { try { fs.accessSync(p, fs.constants.X_OK); return true; } catch { return false; } };
const missing = [];

// 1. npm dependencies
const lock = path.join(root, 'package-lock.json');
const installed = path.join(root, 'node_modules', '.package-lock.json');
if (!fs.existsSync(installed) || mtime(lock) > mtime(installed)) {
  log('installing npm dependencies');
  try {
    run('npm', [fs.existsSync(lock) ? 'ci' : 'install', '--no-audit', '--no-fund']);
  } catch {
    // npm 11 can record a lockfile without other platforms' optional packages, which `npm ci`
    // then refuses; `npm install` installs the same locked versions.
    log('npm ci refused the lockfile; running npm install');
    run('npm', ['install', '--no-audit', '--no-fund']);
  }
}

// 2. Prisma client (the schema engine binary is not needed to generate; point it at any file)
const generated = path.join(root, 'prisma', 'generated', 'client', 'client.ts');
if (mtime(path.join(root, 'prisma', 'schema.prisma')) > mtime(generated)) {
  log('generating the Prisma client');
  run(path.join(root, 'node_modules', '.bin', 'prisma'), ['generate'], {
    // The Pothos generator is a package bin: found on PATH under npm, and also when run as `node scripts/bootstrap.mjs`.
    env: { ...env, PATH: [path.join(root, 'node_modules', '.bin'), env.PATH].filter(Boolean).join(path.delimiter), PRISMA_SCHEMA_ENGINE_BINARY: env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
  });
}

if (!noTools) {
  // 3a. Temporal CLI for the embedded dev server
  if (!env.TEMPORAL_ADDRESS) {
    const toolsBin = path.join(root, '.tools', 'bin');
    const candidates = [env.TEMPORAL_CLI_PATH, which('temporal'), path.join(toolsBin, 'temporal'), path.join(os.homedir(), 'go', 'bin', 'temporal')].filter(Boolean);
    let cli = candidates.find(executable);
    if (!cli) {
      const go = which('go') ?? (executable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null);
      if (go) {
        log(`building the Temporal CLI ${TEMPORAL_VERSION} into .tools/bin with go install (a few minutes, once)`);
        fs.mkdirSync(toolsBin, { recursive: true });
        try {
          run(go, ['install', `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_VERSION}`], { env: { ...env, GOBIN: toolsBin }, cwd: os.tmpdir() });
          cli = path.join(toolsBin, 'temporal');
        } catch (error) {
          missing.push(`Temporal CLI: \`go install github.com/temporalio/cli/cmd/temporal@${TEMPORAL_VERSION}\` failed: ${error.message}`);
        }
      } else {
        missing.push(`Temporal CLI ${TEMPORAL_VERSION}: not on PATH or in .tools/bin, and Go is not installed to build it ` +
          `(install Go, or put \`temporal\` on PATH, or set TEMPORAL_ADDRESS to a Temporal cluster)`);
      }
    }
  }
  // 3b. Chromium for the local browser
  if (!env.BROWSER_WS_ENDPOINTS) {
    const chrome = [env.CHROME_PATH, '/usr/bin/chromium', which('chromium'), which('google-chrome')].filter(Boolean).find(executable);
    if (!chrome) {
      missing.push('Chromium: none of CHROME_PATH, /usr/bin/chromium, chromium, google-chrome exists ' +
        '(install it with `apt-get install -y chromium`, or set BROWSER_WS_ENDPOINTS to a browser grid)');
    }
  }
}

if (missing.length) {
  log('cannot continue, missing:');
  for (const m of missing) log(`  - ${m}`);
  process.exit(1);
}
