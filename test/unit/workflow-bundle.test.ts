/**
 * The workflows bundle for Temporal's deterministic sandbox: a stray Node built-in, Prisma or
 * browser import fails here rather than at worker start (style-anchors.md §8.2). It is built as the
 * worker builds it (worker/workflow-bundle.ts): on a thread of its own, once per process.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.js';
import { workflowBundle } from '../../worker/workflow-bundle.js';
import { workflowsPath } from '../../worker/worker.js';

const logger = createLogger('silent');
/** Modules loaded through `require` in this thread (the SDK and webpack are CommonJS). */
const loadedModules = (): string[] => Object.keys(createRequire(import.meta.url).cache);

describe('workflow bundle', () => {
  it('bundles workflows/index.ts without Node built-ins, on another thread, once per process', async () => {
    const bundle = await workflowBundle(workflowsPath(), logger);
    expect(bundle.code).toContain('productTask');
    expect(bundle.code).toContain('monitorSubscription');
    expect(bundle.code).not.toMatch(/require\(["']node:/);
    // webpack's compiler never loaded into this thread's heap.
    expect(loadedModules().filter((file) => file.includes(`${path.sep}webpack${path.sep}lib${path.sep}`) && file.endsWith('Compiler.js'))).toEqual([]);
    expect(await workflowBundle(workflowsPath(), logger)).toBe(bundle);
  }, 120_000);

  it("rejects with the bundler's error for an entry that does not exist, and tries again on the next call", async () => {
    const missing = path.join(path.dirname(workflowsPath()), 'no-such-workflows.ts');
    await expect(workflowBundle(missing, logger)).rejects.toThrow(/no-such-workflows/);
    await expect(workflowBundle(missing, logger)).rejects.toThrow(/no-such-workflows/);
  }, 120_000);
});
