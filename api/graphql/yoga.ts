/**
 * The GraphQL server (graphql-yoga) over the Pothos schema, with the REST request rules:
 *
 * - Authentication: the Authorization header, Basic or Bearer, through `authenticate` (a header
 *   that is sent must be valid: 40100 / 40101 / 40102, HTTP 401). Only `marketplaces`, `status` and
 *   introspection answer without one (REST: optional auth); any other root field → 40100, HTTP 401.
 * - Document limits (tokens, depth, aliases, directives, fragments; no introspection in
 *   production) before the context is built: 40000, HTTP 400 (query-limits.ts).
 * - Rate limits: an authenticated operation costs what the REST calls it stands for cost
 *   (operation-cost.ts): a request per root field, each alias apart, and the task objects of
 *   postTasks / addSubscriptions / deleteSubscriptions (inline, through variables or their
 *   defaults; 1 for productHistory and createKey), before anything runs or is charged:
 *   40202, HTTP 429 with Retry-After.
 * - Usage: every authenticated operation adds one request to the `graphql` usage counter, with
 *   the tasks and cost of the REST services it ran.
 * - Charged fields are refused over GET (40000, HTTP 405).
 * - Errors carry the REST code in `extensions.code`; unexpected ones are masked (errors.ts).
 * - GraphiQL and introspection when NODE_ENV is not `production`.
 *
 * `yoga.fetch(url, init)` runs a request without Koa (tests); api/rest/routes/graphql.routes.ts
 * mounts it at /graphql.
 */
import { getOperationAST, type GraphQLError } from './graphql-js.js';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { DomainError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { IntervalCache } from '../../core/interval-cache.js';
import { AccountRateLimits } from '../../core/rate-limits.js';
import { RedeliveryLimits } from '../../core/webhooks/redelivery-limits.js';
import { cachedMarketplaceStatuses, type MarketplaceStatusRow } from '../services/status.js';
import { recordUsage } from '../../core/usage.js';
import { authenticate } from '../../core/authentication.js';
import { MAX_BODY_BYTES } from '../../core/validation/task-body.js';
import { createLoaders, type GraphQLContext, type GraphQLDeps } from './context.js';
import { keepAnalyticsReservations } from './analytics-loaders.js';
import { badRequest, isExpectedError, markRequestError, maskError, requestError } from './errors.js';
import { planOperation } from './operation-cost.js';
import { useQueryLimits } from './query-limits.js';
import { schema } from './schema/index.js';

/** Usage endpoint name of GraphQL requests (usage_counters.endpoint). */
export const GRAPHQL_ENDPOINT_NAME = 'graphql';

/** What the Koa route hands over: nothing (the request carries all a resolver needs). */
export type GraphQLServerContext = Record<string, never>;

export type GraphQLServer = YogaServerInstance<GraphQLServerContext, GraphQLContext>;

/**
 * Authentication requirement, method rule, rate limits and usage metering for each operation,
 * decided on the operation's root fields before anything executes.
 */
function useRequestPolicy(rateLimits: AccountRateLimits, logger: Logger): Plugin<GraphQLContext> {
  return {
    onValidate() {
      return ({ valid, result }) => {
        if (!valid) for (const error of result) markRequestError(error);
      };
    },
    async onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as GraphQLContext & { request?: Request };
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return;
      const { fields, requests, tasks } = planOperation(args.schema, args.document, operation, args.variableValues ?? undefined);
      const stop = (error: GraphQLError) => setResultAndStopExecution({ errors: [error] });

      const account = ctx.account;
      if (!account) {
        if (fields.some((f) => !f.policy.public)) stop(requestError(new DomainError('AUTH_FAILED')));
        return;
      }
      const record = async () => {
        try {
          await recordUsage(ctx.db, { accountId: account.id, endpoint: GRAPHQL_ENDPOINT_NAME, tasks: ctx.meter.tasks, cost: ctx.meter.cost });
        } catch (error) {
          logger.error({ err: error }, 'could not record usage');
        }
      };
      if (ctx.request?.method === 'GET' && fields.some((f) => f.policy.charged)) {
        await record();
        stop(badRequest('Bad Request. Charged fields need POST.', 405));
        return;
      }
      try {
        await rateLimits.consume(account.id, account.limits, tasks, requests);
      } catch (error) {
        await record();
        if (error instanceof DomainError) {
          stop(requestError(error));
          return;
        }
        throw error;
      }
      return {
        onExecuteDone: async () => {
          // The answer is made: the charged product fields' reservations are kept. A failure
          // leaves them open, and the reconciler refunds them (never charged without an answer).
          await keepAnalyticsReservations(ctx).catch((err: unknown) => logger.error({ err }, 'could not settle the reservations of an operation'));
          await record();
        },
      };
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
 * Creates the GraphQL server. `rateLimits` and `statuses` are the app's (api/app.ts), shared with
 * the REST routes; a standalone server makes its own on the same database.
 */
export function createGraphQLServer(deps: GraphQLDeps, options: { rateLimits?: AccountRateLimits; statuses?: IntervalCache<MarketplaceStatusRow[]> } = {}): GraphQLServer {
  const rateLimits = options.rateLimits ?? new AccountRateLimits(deps.db);
  const statuses = options.statuses ?? cachedMarketplaceStatuses(deps.db);
  const redeliveryLimits = new RedeliveryLimits(deps.db);
  const production = deps.config.NODE_ENV === 'production';
  return createYoga<GraphQLServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: production ? false : { title: 'retail-data-api GraphQL' },
    landingPage: false,
    cors: false,
    batching: false,
    maxRequestBodySize: MAX_BODY_BYTES,
    maskedErrors: { maskError: (error) => maskError(error) },
    logging: yogaLogger(deps.logger),
    context: async ({ request }): Promise<GraphQLContext> => {
      // A bad header throws the AppError (40100 / 40101 / 40102); maskError answers it with HTTP 401.
      const account = await authenticate(deps.db, request.headers.get('authorization') ?? undefined);
      return {
        deps,
        db: deps.db,
        statuses,
        redeliveryLimits,
        account,
        meter: { tasks: 0, cost: 0 },
        loaders: createLoaders(deps.db, account),
      };
    },
    plugins: [...useQueryLimits({ production }), useParameterErrors(), useRequestPolicy(rateLimits, deps.logger)],
  });
}
