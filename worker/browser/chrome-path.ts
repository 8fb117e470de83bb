/**
 * Finds the Chromium binary for a locally launched browser (operations-contract.md:
 * `CHROME_PATH`, else `/usr/bin/chromium`, `chromium`, `google-chrome`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ChromeNotFoundError } from './errors.js';

/** Candidates looked at when no explicit path is given, in order; bare names are searched on PATH. */
export const DEFAULT_CHROME_CANDIDATES = ['/usr/bin/chromium', 'chromium', 'google-chrome'] as const;

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
