/**
 * Results of task_post tasks (api-spec.md "Product endpoints", "Task lifecycle"): task_get and
 * tasks_ready as domain reads, each one prepared statement (core/task-reads.ts). They return data;
 * the presenters render it (REST: api/rest/envelope/task-get.ts, tasks-ready.ts).
 */
import type { Db } from '../db/db.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { searchResultsById } from '../search-observations.js';
import { collectTask, readyTasks, type ReadyTask, type TaskGetView, type TaskKind } from '../task-reads.js';

/** Most tasks one tasks_ready answer lists (api-spec.md "Limits"). */
export const TASKS_READY_MAX = 1000;

/**
 * task_get: the account's task `id` (any case), marking it collected the first time it is read
 * finished. TASK_NOT_READY is the presenter's reading of `completedAt: null`.
 * @throws DomainError NOT_FOUND for an id that is not a UUID, unknown, another account's or expired
 */
export async function getTask(db: Db, accountId: number, id: string, kind: TaskKind = 'product'): Promise<TaskGetView> {
  if (!isUuid(id)) throw new DomainError('NOT_FOUND');
  const task = await collectTask(db.sql, id.toLowerCase(), accountId, kind);
  if (!task) throw new DomainError('NOT_FOUND');
  return withSearchResults(db, task);
}

/** tasks_ready: the account's finished, uncollected task_post tasks of `kind`, oldest first, at most TASKS_READY_MAX. */
export async function listReadyTasks(db: Db, accountId: number, kind: TaskKind = 'product'): Promise<ReadyTask[]> {
  return readyTasks(db.sql, accountId, TASKS_READY_MAX, kind);
}

/**
 * A search task's view with its SearchResults loaded (page order; an observation purged by
 * retention is left out); any other view as it is.
 */
export async function withSearchResults(db: Db, view: TaskGetView): Promise<TaskGetView> {
  if (view.kind !== 'search' || !view.searchResultIds?.length) return view;
  const byId = await searchResultsById(db, view.searchResultIds);
  return { ...view, searchResults: view.searchResultIds.flatMap((id) => byId.get(id) ?? []) };
}
