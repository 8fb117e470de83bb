/**
 * What the workflows tell the Temporal UI about themselves (core/domain/operator-view.ts): the
 * `ResultCode` (and a subscription's `Tag` and `Summary`) search attributes upserted as they change, and the
 * current details shown on the workflow's page.
 *
 * An upsert is a command in the workflow's history, so it stands behind patch `operator-view`:
 * histories recorded before it replay without upserts (test/unit/workflow-replay.test.ts), and a
 * workflow in flight during the deploy upserts from its next step on. Current details are not
 * commands (they answer Temporal's `__temporal_workflow_metadata` query) and need no patch.
 */
import { patched, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { resultCodeUpdate, type AttributeUpdate } from '../core/domain/operator-view.js';

/** Patch from which workflows upsert their search attributes. */
export const OPERATOR_VIEW_PATCH = 'operator-view';

/** Upserts `ResultCode` (`null` removes it). @returns false when an older history replays without it. */
export function upsertResultCode(code: number | null): boolean {
  if (!patched(OPERATOR_VIEW_PATCH)) return false;
  upsertSearchAttributes(resultCodeUpdate(code));
  return true;
}

/** Upserts other attributes (`null` removes one). */
export function upsertAttributes(updates: AttributeUpdate[]): void {
  if (patched(OPERATOR_VIEW_PATCH)) upsertSearchAttributes(updates);
}

/** Sets the details the UI shows on the workflow's page (Markdown lines). */
export function showDetails(lines: string[]): void {
  setCurrentDetails(lines.join('\n'));
}
