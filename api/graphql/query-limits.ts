/**
 * The document limits of /graphql, checked at parse and validation time: before the context is
 * built (no authentication, no SQL) and whatever the caller, so an anonymous document cannot hold
 * the event loop. Each rule is linear in the document's size (fragments are walked once per
 * document, not once per spread):
 *
 * - tokens (graphql-armor max-tokens, counted while parsing);
 * - depth (graphql-armor max-depth; fragments and inline fragments add no level, `__schema` is
 *   left to the introspection rule);
 * - aliases and directives (graphql-armor max-aliases / max-directives; a fragment spread twice
 *   counts twice);
 * - fragment definitions and introspection recursion (query-shape.ts, ours: armor has neither);
 * - with `NODE_ENV=production`, no introspection at all (graphql-js `NoSchemaIntrospectionCustomRule`;
 *   `__typename` stays).
 *
 * The numbers are `QUERY_LIMITS` (builder.ts). A refusal is 40000, HTTP 400, with a message that
 * names the limit ("Bad Request. Aliases limit of 100 exceeded, found 101."). Breadth and
 * complexity depend on the variables and are checked by @pothos/plugin-complexity when the
 * operation runs.
 */
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { MaxTokensParserWLexer } from '@escape.tech/graphql-armor-max-tokens';
import type { Plugin } from 'graphql-yoga';
import { DomainError } from '../../core/errors.js';
import { NoSchemaIntrospectionCustomRule, type GraphQLError, type ValidationContext, type ValidationRule } from './graphql-js.js';
import { QUERY_LIMITS } from './builder.js';
import { badRequest } from './errors.js';
import { fragmentCountRule, introspectionRecursionRule } from './query-shape.js';

/** Armor prefixes its messages with "Syntax Error: "; ours start like every REST 40000 message. */
function limitMessage(error: GraphQLError): string {
  return `Bad Request. ${error.message.replace(/^Syntax Error: /, '')}`;
}

/** Armor's callbacks: report the refusal as our 40000 instead of throwing out of validation. */
const reportRefusal = {
  propagateOnRejection: false,
  exposeLimits: true,
  onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(badRequest(limitMessage(error), 400, false))],
};

/** The validation rules of the limits; `production` adds the refusal of introspection. */
export function queryLimitRules(options: { production: boolean }): ValidationRule[] {
  const rules: ValidationRule[] = [
    maxDepthRule({ n: QUERY_LIMITS.depth, flattenFragments: true, ignoreIntrospection: true, ...reportRefusal }) as unknown as ValidationRule,
    maxAliasesRule({ n: QUERY_LIMITS.aliases, ...reportRefusal }) as unknown as ValidationRule,
    maxDirectivesRule({ n: QUERY_LIMITS.directives, ...reportRefusal }) as unknown as ValidationRule,
    fragmentCountRule(QUERY_LIMITS.fragments),
    introspectionRecursionRule(),
  ];
  if (options.production) rules.push(NoSchemaIntrospectionCustomRule);
  return rules;
}

/**
 * The token limit at parse time (a refused document is never built), with armor's counting
 * parser. Its refusal is thrown as an AppError 40000 rather than armor's GraphQLError, which yoga
 * would answer like a syntax error (HTTP 200 under `application/json`): every limit is HTTP 400.
 */
function useTokenLimit(max: number): Plugin {
  const refusals = new WeakSet<object>();
  const onReject = [(_context: ValidationContext | null, error: GraphQLError) => void refusals.add(error)];
  return {
    onParse({ setParseFn }) {
      setParseFn((source, options) => {
        try {
          return new MaxTokensParserWLexer(source, { ...options, n: max, exposeLimits: true, onReject }).parseDocument();
        } catch (error) {
          if (error instanceof Error && refusals.has(error)) throw new DomainError('BAD_REQUEST', { message: limitMessage(error as GraphQLError) });
          throw error;
        }
      });
    },
  };
}

/** The yoga plugins of the limits: the token count while parsing, then the validation rules. */
export function useQueryLimits(options: { production: boolean }): Plugin[] {
  const rules = queryLimitRules(options);
  return [
    useTokenLimit(QUERY_LIMITS.tokens),
    {
      onValidate({ addValidationRule }) {
        for (const rule of rules) addValidationRule(rule);
      },
    },
  ];
}
