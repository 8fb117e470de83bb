/**
 * What one GraphQL operation will run, decided before it runs: its root fields as graphql-js will
 * execute them, and what they cost against the per-minute limits — the cost of the REST calls they
 * stand for (api-spec.md "Limits"):
 *
 * - requests: one per root field that executes (each alias apart; `__typename` and introspection
 *   are free), at least one per operation — a REST client makes one call per field;
 * - tasks: per field, its policy's fixed count, or the task objects of its list argument
 *   (`core/rate-limits.ts` `taskObjects`, the rule REST applies to a POST body) as the resolver
 *   receives it: written inline, given through variables, or through a variable's default.
 *
 * Root fields are collected as execution collects them: through fragments and inline fragments,
 * honouring @skip / @include, each fragment once, one field per response key (fields merged
 * under one key execute once). Linear in the document's size.
 */
import { taskObjects } from '../../core/rate-limits.js';
import type { RootFieldPolicy } from './builder.js';
import {
  GraphQLIncludeDirective, GraphQLSkipDirective, Kind, getArgumentValues, getDirectiveValues, getVariableValues,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLObjectType, type GraphQLSchema, type OperationDefinitionNode,
  type SelectionSetNode,
} from './graphql-js.js';

/** One root field that will execute, with its policy (the field's extensions). */
export interface PlannedField {
  node: FieldNode;
  policy: RootFieldPolicy;
}

/** An operation's root fields and its cost against the limits (requests and task objects per minute). */
export interface OperationPlan {
  fields: PlannedField[];
  requests: number;
  tasks: number;
}

type Variables = Record<string, unknown>;

/** False when @skip(if: true) or @include(if: false) leaves the node out (graphql-js `shouldIncludeNode`). */
function included(node: SelectionSetNode['selections'][number], variables: Variables): boolean {
  try {
    if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
  } catch {
    // Variables that do not coerce: the operation will not run; counting the node is the safe side.
    return true;
  }
}

/** Root fields by response key, first node of each key (execution's `collectFields` on the root type). */
function collectRootFields(
  selectionSet: SelectionSetNode, rootType: GraphQLObjectType, fragments: Map<string, FragmentDefinitionNode>,
  variables: Variables, out: Map<string, FieldNode>, visited: Set<string>,
): void {
  for (const selection of selectionSet.selections) {
    if (!included(selection, variables)) continue;
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      if (!out.has(key)) out.set(key, selection);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      if (selection.typeCondition && selection.typeCondition.name.value !== rootType.name) continue;
      collectRootFields(selection.selectionSet, rootType, fragments, variables, out, visited);
    } else {
      const name = selection.name.value;
      if (visited.has(name)) continue;
      visited.add(name);
      const fragment = fragments.get(name);
      if (!fragment || fragment.typeCondition.name.value !== rootType.name) continue;
      collectRootFields(fragment.selectionSet, rootType, fragments, variables, out, visited);
    }
  }
}

/** Task objects one field carries: the policy's count, or its list argument's elements (0 when its arguments do not coerce: it will not run). */
function tasksOf(field: PlannedField, rootType: GraphQLObjectType, variables: Variables): number {
  const { rateLimitTasks } = field.policy;
  if (typeof rateLimitTasks === 'number') return rateLimitTasks;
  if (!rateLimitTasks) return 0;
  const definition = rootType.getFields()[field.node.name.value];
  if (!definition) return 0;
  try {
    return taskObjects(getArgumentValues(definition, field.node, variables)[rateLimitTasks]);
  } catch {
    return 0;
  }
}

/**
 * The plan of `operation` of `document` with the request's raw `variableValues` (defaults applied
 * and coerced here as execution will). With variables that do not coerce the operation will not
 * run: its plan counts one request and no task.
 */
export function planOperation(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variableValues: Variables | undefined): OperationPlan {
  const rootType = schema.getRootType(operation.operation);
  if (!rootType) return { fields: [], requests: 1, tasks: 0 };
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variableValues ?? {});
  const variables = coerced.coerced ?? {};
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const byKey = new Map<string, FieldNode>();
  collectRootFields(operation.selectionSet, rootType, fragments, variables, byKey, new Set());
  const fields = [...byKey.values()]
    .filter((node) => !node.name.value.startsWith('__'))
    .map((node) => ({ node, policy: (rootType.getFields()[node.name.value]?.extensions ?? {}) as RootFieldPolicy }));
  if (!coerced.coerced) return { fields, requests: 1, tasks: 0 };
  const tasks = fields.reduce((sum, field) => sum + tasksOf(field, rootType, variables), 0);
  return { fields, requests: Math.max(1, fields.length), tasks };
}
