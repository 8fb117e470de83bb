/**
 * graphql-js, loaded once. graphql@16 has no `exports` map: Node (and so graphql-yoga and Pothos)
 * loads its `main` (index.js), while a bundler that prefers `module` — vitest's transform of our
 * own sources — would load index.mjs beside it: two realms, where a schema or error of one is
 * not an instance for the other ("Cannot use GraphQLSchema from another module or realm", errors
 * masked as unexpected). Requiring it pins the copy Node loads, everywhere.
 */
import { createRequire } from 'node:module';

type GraphQLJs = typeof import('graphql');

const graphqlJs = createRequire(import.meta.url)('graphql') as GraphQLJs;

export const {
  GraphQLError, GraphQLIncludeDirective, GraphQLSkipDirective, Kind, NoSchemaIntrospectionCustomRule, getArgumentValues, getDirectiveValues,
  getOperationAST, getVariableValues, lexicographicSortSchema, parse, printSchema, validate, valueFromASTUntyped,
} = graphqlJs;
export type GraphQLError = import('graphql').GraphQLError;
export type {
  DocumentNode, FieldNode, FragmentDefinitionNode, GraphQLObjectType, GraphQLSchema, OperationDefinitionNode, SelectionSetNode,
  ValidationContext, ValidationRule,
} from 'graphql';
