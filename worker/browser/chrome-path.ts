/**
 * Finds the Chromium binary for a locally launched browser (operations-contract.md:
 * `CHROME_PATH`, else `/usr/bin/chromium`, `chromium`, `google-chrome`), looking first for
 * Chromium's headless shell (Debian's `chromium-headless-shell`) when no path is given.
 *
 * Why the headless shell first: full Chromium's headless mode runs the browser's own windows
 * off-screen, and every navigation animates a tab's loading indicator, which the browser process
 * and the GPU process composite into frames nobody sees; that compositing is half of Chromium's
 * CPU per read (BENCHMARKS.md, "Twelfth change"). The headless shell is the same Chromium build
 * without the browser's windows: the same CDP, incognito contexts, Fetch domain and per-context
 * proxies. Full Chromium stays the fallback, so a machine with only `chromium` reads as before.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ChromeNotFoundError } from './errors.js';

/**
 * Candidates looked at when no explicit path is given, in order; bare names are searched on PATH.
 * Debian's `/usr/bin/chromium-headless-shell` is a shell script that runs the binary as its child
 * (no `exec`): the binary itself comes first, so the worker's browser process is Chromium's.
 */
export const DEFAULT_CHROME_CANDIDATES = [
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium-headless-shell',
  'chromium-headless-shell',
  '/usr/bin/chromium',
  'chromium',
  'google-chrome',
] as const;

/**
 * Whether `executablePath` is Chromium's headless shell (Debian's `chromium-headless-shell`,
 * Chrome for Testing's `chrome-headless-shell`): it is started with `--headless`, not
 * `--headless=new` (puppeteer's `headless: 'shell'`).
 */
export function isHeadlessShell(executablePath: string): boolean {
  return /headless[-_]shell/.test(path.basename(executablePath));
}

function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Resolves the Chromium executable. An explicit `chromePath` is the only candidate (no silent
 * fallback when it is wrong).
 * @throws ChromeNotFoundError naming every path tried.
 */
export function resolveChromePath(chromePath?: string, envPath: string = process.env.PATH ?? ''): string {
  const candidates = chromePath ? [chromePath] : [...DEFAULT_CHROME_CANDIDATES];
  const tried: string[] = [];
  for (const candidate of candidates) {
    if (candidate.includes('/')) {
      tried.push(candidate);
      if (isExecutableFile(candidate)) return candidate;
      continue;
    }
    const dirs = envPath.split(path.delimiter).filter(Boolean);
    tried.push(`${candidate} on PATH`);
    for (const dir of dirs) {
      const file = path.join(dir, candidate);
      if (isExecutableFile(file)) return file;
    }
  }
  throw new ChromeNotFoundError(tried);
}
