/**
 * What a test file needs from outside the repository, and one rule for when it is missing:
 * under `CI=true` the file's block fails with the reason (CI never passes by skipping); elsewhere it
 * is skipped with the reason as the skip note, which the run's summary lists
 * (test/support/skip-summary-reporter.ts). Chromium and the Temporal CLI are not listed here: the
 * bootstrap in front of `npm test` installs them or stops the run.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, it } from 'vitest';
import { postgresBaseUrl, sharedPagesDir, sharedSearchPagesDir } from './env.js';

/** One outside thing a test needs: its name, and why it is missing (`null` when present). */
export interface Prerequisite {
  name: string;
  missing: string | null;
}

/** True when the run is CI's (`CI=true`, as CI sets it). */
export const inCi = process.env.CI === 'true';

/** The saved marketplace pages beside the repository (`../shared/fixtures/pages` with its MANIFEST.tsv). */
export const savedPages: Prerequisite = {
  name: 'saved pages',
  missing: fs.existsSync(path.join(sharedPagesDir, 'MANIFEST.tsv')) ? null : `no MANIFEST.tsv in ${sharedPagesDir}`,
};

/** The saved search result pages beside the repository (`../shared/fixtures/search` with its MANIFEST.tsv). */
export const savedSearchPages: Prerequisite = {
  name: 'saved search pages',
  missing: fs.existsSync(path.join(sharedSearchPagesDir, 'MANIFEST.tsv')) ? null : `no MANIFEST.tsv in ${sharedSearchPagesDir}`,
};

/** docker-compose, which validates docker-compose.yml (`npm test` installs it as root; no container engine is needed). */
export const dockerCompose: Prerequisite & { path?: string } = (() => {
  const found = ['/usr/bin/docker-compose', '/usr/local/bin/docker-compose'].find((p) => fs.existsSync(p));
  return { name: 'docker-compose', path: found, missing: found ? null : 'docker-compose is not installed (`apt-get install -y docker-compose`)' };
})();

/** The real PostgreSQL of production-mode tests (DATABASE_URL_TEST), tried with a 3 s connect limit. */
export async function postgres(): Promise<Prerequisite> {
  const client = new pg.Client({ connectionString: postgresBaseUrl, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return { name: 'PostgreSQL', missing: null };
  } catch (error) {
    return { name: 'PostgreSQL', missing: `PostgreSQL not reachable at ${postgresBaseUrl} (${(error as Error).message}); set DATABASE_URL_TEST` };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * `describe(title, body)` when every prerequisite is present. Otherwise one test in its place that
 * fails under CI and is skipped elsewhere, both with the reasons.
 */
export function describeNeeding(prerequisites: Prerequisite[], title: string, body: () => void): void {
  const absent = prerequisites.filter((p) => p.missing !== null);
  if (absent.length === 0) {
    describe(title, body);
    return;
  }
  const why = absent.map((p) => p.missing).join('; ');
  describe(title, () => {
    it(`needs ${absent.map((p) => p.name).join(', ')}`, (ctx) => {
      if (inCi) throw new Error(`prerequisite missing under CI=true: ${why}`);
      ctx.skip(why);
    });
  });
}
