/**
 * The parts of the documentation that are derived from the code stay in step with it: the folder
 * map of docs/architecture.md lists exactly the folders of the tree, and the configuration table of
 * docs/operations.md is the one generated from the zod schema of core/config.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../core/config.js';
import { configTableIn, operationsDoc, renderConfigTable } from '../../scripts/docs-config.js';
import { architectureDoc, folderMapIn, repoRoot, sourceFolders } from '../../scripts/docs-folders.js';

describe('docs/architecture.md folder map', () => {
  const map = folderMapIn(fs.readFileSync(architectureDoc, 'utf8'));

  it('lists every source folder, and only those (npm run docs:folders -- --write)', () => {
    expect(map, 'docs/architecture.md has no <!-- folder-map:start --> … <!-- folder-map:end --> table').toBeDefined();
    const listed = new Set(map!.keys());
    const existing = sourceFolders();
    const missing = existing.filter((folder) => !listed.has(folder));
    const stale = [...listed].filter((folder) => !existing.includes(folder));
    expect({ missing, stale }, `folder map out of date: run \`npm run docs:folders -- --write\` and describe the TODO rows`).toEqual({ missing: [], stale: [] });
  });

  it('gives each folder a purpose', () => {
    const undescribed = [...map!].filter(([, purpose]) => !purpose || purpose === 'TODO').map(([folder]) => folder);
    expect(undescribed, 'folders whose purpose is TODO or empty in docs/architecture.md').toEqual([]);
  });

  it('sees the folders of the tree (sanity check of the walk)', () => {
    expect(sourceFolders()).toEqual(expect.arrayContaining(['api', 'core', 'worker', 'workflows', 'test/unit']));
    expect(sourceFolders().some((f) => f.startsWith('prisma/generated'))).toBe(false);
    expect(fs.existsSync(path.join(repoRoot, '.dependency-cruiser.cjs'))).toBe(true);
  });
});

describe('docs/operations.md configuration table', () => {
  it('every configuration variable has a description in core/config.ts', () => {
    const undescribed = Object.entries(configSchema.shape).filter(([, schema]) => !schema.description?.trim()).map(([name]) => name);
    expect(undescribed, 'add .describe(…) to these variables in core/config.ts').toEqual([]);
  });

  it('is the table generated from core/config.ts (npm run docs:config)', () => {
    const committed = configTableIn(fs.readFileSync(operationsDoc, 'utf8'));
    expect(committed, 'docs/operations.md has no <!-- config-table:start --> … <!-- config-table:end --> table').toBeDefined();
    expect(committed, 'docs/operations.md configuration table is stale: run `npm run docs:config`').toBe(renderConfigTable());
  });
});
