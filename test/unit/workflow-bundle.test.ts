/**
 * The workflows bundle for Temporal's deterministic sandbox: a stray Node built-in, Prisma or
 * browser import fails here rather than at worker start (style-anchors.md §8.2).
 */
import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowsPath } from '../../worker/worker.js';

describe('workflow bundle', () => {
  it('bundles workflows/index.ts without Node built-ins', async () => {
    const { code } = await bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} } as never });
    expect(code).toContain('productTask');
    expect(code).toContain('monitorSubscription');
    expect(code).not.toMatch(/require\(["']node:/);
  }, 120_000);
});
