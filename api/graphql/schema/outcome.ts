/**
 * Mutation results render the same request outcome REST renders as its envelope
 * (core/domain/outcomes.ts): a request-level code is a GraphQL error (extensions.code); each
 * element of the input has a result whose `statusCode`, `statusMessage` and `cost` are that
 * element's, as the REST task of the same request reports them.
 */
import type { ObjectRef } from '@pothos/core';
import type { BatchOutcome, TaskOutcome } from '../../../core/domain/outcomes.js';
import { builder, IN_MEMORY_LIST, type BuilderTypes } from '../builder.js';

export const TaskOutcomeRef = builder.interfaceRef<TaskOutcome>('TaskOutcome').implement({
  description: 'The outcome of one input element, as the REST task object of the same request reports it.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The REST task id of this element (stored only for accepted product tasks).' }),
    statusCode: t.exposeInt('code', { description: 'Task-level code (api-spec.md "Errors"): 20000 / 20100 on success.' }),
    statusMessage: t.exposeString('message'),
    cost: t.exposeFloat('cost', { description: 'USD charged for this element.' }),
  }),
});

/** Defines the payload of a batch mutation: totals of the envelope and one result per element. */
export function batchPayload(name: string, resultRef: ObjectRef<BuilderTypes, TaskOutcome>) {
  return builder.objectRef<BatchOutcome>(name).implement({
    fields: (t) => ({
      cost: t.exposeFloat('cost', { description: 'USD charged for the whole mutation.' }),
      tasksCount: t.int({ resolve: (o) => o.tasks.length }),
      tasksError: t.exposeInt('errors', { description: 'Results whose statusCode is 40000 or above.' }),
      results: t.field({ type: [resultRef], complexity: IN_MEMORY_LIST, description: 'One per input element, in input order.', resolve: (e) => e.tasks }),
    }),
  });
}

/** A GraphQL input object as the REST element: snake_case keys, absent arguments left out. */
export function restElement(input: Record<string, unknown>, names: Record<string, string> = {}): Record<string, unknown> {
  const element: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value !== undefined) element[names[key] ?? key] = value;
  }
  return element;
}

/** Filter arguments as readRequestFields reads them: absent and null both mean "no filter". */
export function filterArgs(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined && value !== null));
}
