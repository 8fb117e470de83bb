/**
 * Workflow determinism across releases: histories recorded by earlier releases' productTask,
 * monitorSubscription (charging after the read, before patch `monitor-reserve-before-read`;
 * reserving before the read, before change alerts; starting change deliveries, patch
 * `monitor-change-alerts`) and webhookDelivery (attempts on the main task queue; on the webhook
 * queue, before event ids; a change event) (test/fixtures/histories, one file per shape)
 * replay with today's workflow code, and so do histories recorded after patch `operator-view`
 * (`*-operator-view-*.json`: ResultCode, Tag and Summary upserts, a monitor's configure signal with
 * a new tag and its continue-as-new, a delivery still retrying). A change to
 * workflows/ that would break a workflow in flight during a deploy fails here
 * (a nondeterminism error), so such a change must go behind `patched(...)`. Record a new shape
 * with `temporal workflow show --workflow-id <task id> --output json` against a dev server running
 * the release (`local-bookkeeping`: before patch `read-completes-task`; `read-completes`: after).
 * The JSON is parsed by the SDK's protobufjs 8, which package.json pins at the top level so that
 * @temporalio/common and @temporalio/proto share one copy (with two, it fails 'type must be a Type').
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowsPath } from '../../worker/worker.js';

const HISTORIES = fileURLToPath(new URL('../fixtures/histories/', import.meta.url));

describe('recorded workflow histories replay with the current workflow code', () => {
  const files = fs.readdirSync(HISTORIES).filter((f) => f.endsWith('.json')).sort();

  it('has recorded histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
  });

  it('replays every recorded history without a nondeterminism error', async () => {
    const histories = files.map((file) => ({
      workflowId: path.basename(file, '.json'),
      // JSON as `temporal workflow show --output json` writes it; the worker parses it.
      history: JSON.parse(fs.readFileSync(path.join(HISTORIES, file), 'utf8')) as unknown,
    }));
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories({ workflowsPath: workflowsPath() }, histories)) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
