/**
 * All activities, built from injected dependencies (`createActivities(deps)`); workflows import
 * the `Activities` type only.
 */
import { createProductReadActivities, type ProductReadDeps } from './product-read.js';
import { createTaskActivities } from './task-bookkeeping.js';

export type ActivityDeps = ProductReadDeps;

export function createActivities(deps: ActivityDeps) {
  return {
    ...createProductReadActivities(deps),
    ...createTaskActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
