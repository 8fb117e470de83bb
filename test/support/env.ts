/**
 * Where the tests find outside things: the shared fixtures beside the repository and the real
 * PostgreSQL of production-mode tests (DATABASE_URL_TEST, default 127.0.0.1:5432/test).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const sharedPagesDir = path.resolve(repoRoot, '../shared/fixtures/pages');
export const sharedSearchPagesDir = path.resolve(repoRoot, '../shared/fixtures/search');
export const hasSharedPages = fs.existsSync(path.join(sharedPagesDir, 'MANIFEST.tsv'));
export const syntheticReplayDir = path.join(repoRoot, 'test/fixtures/replay');

// Scratch databases are shared with the benchmarks, which must not import test code.
export { createScratchDatabase, postgresBaseUrl } from '../../scripts/scratch-database.js';
