/**
 * /openapi.json entry of /graphql: GraphQL over HTTP (api/rest/routes/graphql.routes.ts). Its types,
 * fields and arguments are described by the GraphQL schema itself (`schema.graphql`,
 * introspection), not here. Authentication is optional at the HTTP level: charged and account
 * fields need a key, as on REST.
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { jsonOk, operation } from '../operations.js';
import { STATUS } from '../../../../core/domain/status-codes.js';

const tags = ['graphql'];

const graphqlRequest = z.object({
  query: z.string().meta({ description: 'The GraphQL document.', examples: ['{ marketplaces { code domain } }'] }),
  variables: z.record(z.string(), z.unknown()).nullish(),
  operationName: z.string().nullish(),
  extensions: z.record(z.string(), z.unknown()).nullish(),
}).meta({ id: 'GraphQLRequest' });

const graphqlResponse = z.looseObject({
  data: z.record(z.string(), z.unknown()).nullish(),
  errors: z.array(z.looseObject({
    message: z.string(),
    path: z.array(z.union([z.string(), z.number()])).optional(),
    extensions: z.record(z.string(), z.unknown()).optional(),
  })).optional(),
}).meta({ id: 'GraphQLResponse', description: 'A GraphQL response: `data` and/or `errors`.' });

const description = 'Errors of fields come in `errors`; HTTP errors of the request as a whole are the GraphQL server\'s (see the GraphQL schema).';

/** GET and POST /graphql. */
export const graphqlPaths: ZodOpenApiPathsObject = {
  '/graphql': {
    post: operation({
      operationId: 'graphqlPost',
      tags,
      summary: 'A GraphQL request',
      description,
      auth: 'optional',
      body: graphqlRequest,
      badRequest: [STATUS.BAD_REQUEST],
      ok: jsonOk('The GraphQL response.', graphqlResponse),
    }),
    get: operation({
      operationId: 'graphqlGet',
      tags,
      summary: 'A GraphQL query in the query string (GraphiQL outside production)',
      description: `Queries only (no mutations), without charged fields. ${description}`,
      auth: 'optional',
      query: z.object({
        query: z.string().optional().meta({ description: 'The GraphQL document; without it, outside production, GraphiQL answers (text/html).' }),
        variables: z.string().optional().meta({ description: 'JSON object of the variables.' }),
        operationName: z.string().optional(),
      }),
      ok: { description: 'The GraphQL response, or GraphiQL.', content: { 'application/json': { schema: graphqlResponse }, 'text/html': { schema: z.string() } } },
    }),
  },
};
