/**
 * The Pothos schema builder: @pothos/plugin-prisma over the Prisma 7 `prisma-client` output
 * (types and datamodel from the `prisma-pothos-types` generator in prisma/schema.prisma; the client
 * comes from the request context, so tests can hand in an instrumented one), relay connections
 * without the global `node` / `nodes` fields (they would load any row by id, unscoped), and
 * depth / breadth / complexity limits.
 */
import SchemaBuilder, { type SchemaTypes } from '@pothos/core';
import ComplexityPlugin, { ComplexityErrorKind } from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import { GraphQLError, Kind, valueFromASTUntyped } from './graphql-js.js';
import type PrismaTypes from '../../prisma/generated/pothos-types.js';
import { getDatamodel } from '../../prisma/generated/pothos-types.js';
import type { GraphQLContext } from './context.js';
import { badRequest } from './errors.js';

/**
 * Query limits. Document limits (tokens, depth, aliases, directives, fragments) are checked at
 * parse and validation time, before anything runs (query-limits.ts); the deepest data path of this
 * schema is 10, a task_post of 100 tasks written inline in the document about 2,100 tokens.
 * Breadth and complexity are checked by the complexity plugin before the root fields run.
 * Complexity: every field costs 1; a connection multiplies its selection by the page size asked
 * for, lists held in memory (a product's variants, a mutation's results) by 1. A 100-row
 * connection with each row's latest observation costs about 3,000.
 */
export const QUERY_LIMITS = {
  depth: 12, breadth: 400, complexity: 20_000,
  /** Lexical tokens of the document (variables' values are not tokens). */
  tokens: 5_000,
  /** Aliased fields, a fragment counted each time it is spread (`__typename` aliases are free). */
  aliases: 100,
  /** Directives (@skip, @include), counted like aliases. */
  directives: 50,
  /** Fragment definitions. */
  fragments: 20,
} as const;

/** Connection page sizes (prismaConnection / relatedConnection). */
export const CONNECTION_SIZE = { default: 20, max: 100 } as const;

/** Field extensions read by the request policy in yoga.ts. */
export interface RootFieldPolicy {
  /** Answerable without authentication (REST: optional auth). */
  public?: boolean;
  /** Task objects the field carries, for the tasks-per-minute limit: a list argument's name, or a count. */
  rateLimitTasks?: string | number;
  /** Charges the balance: refused over GET (a browser could replay cached Basic credentials). */
  charged?: boolean;
}

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [ComplexityPlugin, RelayPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    edgesFieldOptions: { complexity: { field: 0, multiplier: 1 } },
  },
  prisma: {
    client: (ctx) => ctx.db.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
    defaultConnectionSize: CONNECTION_SIZE.default,
    maxConnectionSize: CONNECTION_SIZE.max,
  },
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    limit: { breadth: QUERY_LIMITS.breadth, complexity: QUERY_LIMITS.complexity },
    complexityError: (kind, result) => {
      const [value, max] = kind === ComplexityErrorKind.Depth ? [result.depth, result.maxDepth]
        : kind === ComplexityErrorKind.Breadth ? [result.breadth, result.maxBreadth] : [result.complexity, result.maxComplexity];
      return badRequest(`Bad Request. Query ${kind.toLowerCase()} ${value} exceeds the maximum of ${max}.`);
    },
  },
});

/** The builder's full schema types (for refs declared outside a builder call). */
export type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T extends SchemaTypes> ? T : never;

/** Complexity of a connection field: its selection times the page size asked for. */
export function connectionComplexity(args: { first?: number | null; last?: number | null }) {
  const size = Math.min(CONNECTION_SIZE.max, Math.max(0, args.first ?? args.last ?? CONNECTION_SIZE.default));
  return { field: 1, multiplier: size };
}

/** Complexity of a list held in memory (no loading per element). */
export const IN_MEMORY_LIST = { field: 1, multiplier: 1 } as const;

builder.queryType({});
builder.mutationType({});

builder.scalarType('DateTime', {
  description: 'An instant, ISO 8601 in UTC (2026-01-31T12:00:00.000Z).',
  serialize: (value) => value.toISOString(),
  parseValue: (value) => {
    const date = typeof value === 'string' ? new Date(value) : undefined;
    if (!date || Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 string.');
    return date;
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value (a task as received, echoed like the REST `data`).',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast) => (ast.kind === Kind.NULL ? null : valueFromASTUntyped(ast)),
});
