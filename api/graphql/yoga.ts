/**
 * The GraphQL server (graphql-yoga) over the Pothos schema, with the REST request rules:
 *
 * - Authentication: the Authorization header, Basic or Bearer, through `authenticate` (a header
 *   that is sent must be valid: 40100 / 40101 / 40102, HTTP 401). Only `marketplaces`, `status` and
 *   introspection answer without one (REST: optional auth); any other root field → 40100, HTTP 401.
 * - Rate limits: an authenticated operation counts as one request, and its task objects (the
 *   elements of postTasks / addSubscriptions / deleteSubscriptions, 1 for productHistory and
 *   createKey) against the tasks-per-minute limit, before anything runs or is charged:
 *   40202, HTTP 429 with Retry-After.
 * - Usage: every authenticated operation adds one request to the `graphql` usage counter, with
 *   the tasks and cost of the REST services it ran.
 * - Charged fields are refused over GET (40000, HTTP 405).
 * - Errors carry the REST code in `extensions.code`; unexpected ones are masked (errors.ts).
 * - GraphiQL when NODE_ENV is not `production`.
 *
 * `yoga.fetch(url, init)` runs a request without Koa (tests); api/routes/graphql.routes.ts
 * mounts it at /graphql.
 */
import { getOperationAST, Kind, type FieldNode, type FragmentDefinitionNode, type GraphQLError, type GraphQLObjectType, type SelectionSetNode } from './graphql-js.js';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { AppError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { AccountRateLimits } from '../../core/rate-limits.js';
import { recordUsage } from '../../core/usage.js';
import { authenticate } from '../middleware/auth.js';
import { MAX_BODY_BYTES } from '../middleware/json-body.js';
import { QUERY_LIMITS, type RootFieldPolicy } from './builder.js';
import { createLoaders, type GraphQLContext, type GraphQLDeps } from './context.js';
import { badRequest, isExpectedError, markRequestError, maskError, requestError } from './errors.js';
import { queryShapeRule } from './query-shape.js';
import { schema } from './schema/index.js';

/** Usage endpoint name of GraphQL requests (usage_counters.endpoint). */
export const GRAPHQL_ENDPOINT_NAME = 'graphql';

/** Most task objects one field counts, as REST counts at most 100 per body. */
const MAX_TASKS_PER_FIELD = 100;

/** What the Koa route hands over (absent when yoga.fetch is called directly). */
export interface GraphQLServerContext {
  /** performance.now() when the request arrived (the envelopes' `time`). */
  startedAt?: number;
}

export type GraphQLServer = YogaServerInstance<GraphQLServerContext, GraphQLContext>;

/** The root fields an operation selects (through fragments), without introspection fields. */
function rootFields(selectionSet: SelectionSetNode, fragments: Record<string, FragmentDefinitionNode>, seen = new Set<string>()): FieldNode[] {
  const out: FieldNode[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (!selection.name.value.startsWith('__')) out.push(selection);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      out.push(...rootFields(selection.selectionSet, fragments, seen));
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = fragments[selection.name.value];
      if (fragment) out.push(...rootFields(fragment.selectionSet, fragments, seen));
    }
  }
  return out;
}

/** Task objects a root field carries: its list argument's length (a variable or a literal), or a fixed count. */
function tasksOf(field: FieldNode, policy: RootFieldPolicy, variables: Record<string, unknown>): number {
  if (typeof policy.rateLimitTasks === 'number') return policy.rateLimitTasks;
  if (!policy.rateLimitTasks) return 0;
  const arg = field.arguments?.find((a) => a.name.value === policy.rateLimitTasks);
  if (!arg) return 0;
  let count: number;
  if (arg.value.kind === Kind.LIST) count = arg.value.values.length;
  else if (arg.value.kind === Kind.VARIABLE) {
    const value = variables[arg.value.name.value];
    count = Array.isArray(value) ? value.length : value === null || value === undefined ? 0 : 1;
  } else count = arg.value.kind === Kind.NULL ? 0 : 1;
  return Math.min(count, MAX_TASKS_PER_FIELD);
}

/**
 * Authentication requirement, method rule, rate limits and usage metering for each operation,
 * decided on the operation's root fields before anything executes.
 */
function useRequestPolicy(rateLimits: AccountRateLimits, logger: Logger): Plugin<GraphQLContext> {
  const shapeRule = queryShapeRule(QUERY_LIMITS.depth);
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(shapeRule);
      return ({ valid, result }) => {
        if (!valid) for (const error of result) markRequestError(error);
      };
    },
    async onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as GraphQLContext & { request?: Request };
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return;
      const rootType = args.schema.getRootType(operation.operation) as GraphQLObjectType | null | undefined;
      if (!rootType) return;
      const fragments: Record<string, FragmentDefinitionNode> = {};
      for (const definition of args.document.definitions) {
        if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
      }
      const fields = rootFields(operation.selectionSet, fragments).map((node) => ({
        node,
        policy: (rootType.getFields()[node.name.value]?.extensions ?? {}) as RootFieldPolicy,
      }));
      const stop = (error: GraphQLError) => setResultAndStopExecution({ errors: [error] });

      const account = ctx.account;
      if (!account) {
        if (fields.some((f) => !f.policy.public)) stop(requestError(new AppError('AUTH_FAILED')));
        return;
      }
      const record = async () => {
        try {
          await recordUsage(ctx.prisma, { accountId: account.id, endpoint: GRAPHQL_ENDPOINT_NAME, tasks: ctx.meter.tasks, cost: ctx.meter.cost });
        } catch (error) {
          logger.error({ err: error }, 'could not record usage');
        }
      };
      if (ctx.request?.method === 'GET' && fields.some((f) => f.policy.charged)) {
        await record();
        stop(badRequest('Bad Request. Charged fields need POST.', 405));
        return;
      }
      const tasks = fields.reduce((sum, f) => sum + tasksOf(f.node, f.policy, args.variableValues ?? {}), 0);
      try {
        await rateLimits.consume(account.id, account.limits, tasks);
      } catch (error) {
        await record();
        if (error instanceof AppError) {
          stop(requestError(error));
          return;
        }
        throw error;
      }
      return { onExecuteDone: record };
    },
  };
}

/**
 * Request parameters that do not parse (GET `variables` that is not JSON: yoga's parser throws a
 * SyntaxError, answered 500) are the client's mistake: 40000, like any request GraphQL cannot read.
 */
function useParameterErrors(): Plugin<GraphQLContext> {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (error) {
          if (error instanceof SyntaxError) throw badRequest('Bad Request. `variables` is not valid JSON.');
          throw error;
        }
      });
    },
  };
}

/** yoga's logger on pino; expected answers (domain codes) are not logged as errors. */
function yogaLogger(logger: Logger) {
  return {
    debug: (...args: unknown[]) => logger.debug({ yoga: args }, 'graphql'),
    info: (...args: unknown[]) => logger.info({ yoga: args }, 'graphql'),
    warn: (...args: unknown[]) => logger.warn({ yoga: args }, 'graphql'),
    error: (...args: unknown[]) => {
      const error = args[0];
      if (isExpectedError(error)) logger.debug({ err: error }, 'graphql answered an error');
      else logger.error({ err: error }, 'graphql: unexpected error');
    },
  };
}

/**
 * Creates the GraphQL server. `rateLimits` is the app's limiter (api/app.ts); a standalone server
 * makes its own on the same database.
 */
export function createGraphQLServer(deps: GraphQLDeps, options: { rateLimits?: AccountRateLimits } = {}): GraphQLServer {
  const rateLimits = options.rateLimits ?? new AccountRateLimits(deps.prisma);
  return createYoga<GraphQLServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: deps.config.NODE_ENV === 'production' ? false : { title: 'retail-data-api GraphQL' },
    landingPage: false,
    cors: false,
    batching: false,
    maxRequestBodySize: MAX_BODY_BYTES,
    maskedErrors: { maskError: (error) => maskError(error) },
    logging: yogaLogger(deps.logger),
    context: async ({ request, startedAt }): Promise<GraphQLContext> => {
      // A bad header throws the AppError (40100 / 40101 / 40102); maskError answers it with HTTP 401.
      const account = await authenticate(deps.prisma, request.headers.get('authorization') ?? undefined);
      return {
        deps,
        prisma: deps.prisma,
        account,
        startedAt: startedAt ?? performance.now(),
        meter: { tasks: 0, cost: 0 },
        loaders: createLoaders(deps.prisma, account),
      };
    },
    plugins: [useParameterErrors(), useRequestPolicy(rateLimits, deps.logger)],
  });
}
