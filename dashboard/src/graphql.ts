/**
 * Typed GraphQL documents (gql.tada, typed against schema.graphql through graphql-env.d.ts, which
 * `npm run graphql:schema` regenerates) and the one request function of the dashboard: a POST to
 * the same origin's /graphql with the session's key. Errors are thrown as {@link ApiError} with the
 * API's message and code (`extensions.code`, the REST status code); a refused key (revoked, or
 * the account disabled) also calls the handler of {@link onUnauthorized}.
 */
import { initGraphQLTada, type ResultOf, type TadaDocumentNode, type VariablesOf } from 'gql.tada';
import { print } from '@0no-co/graphql.web';
import type { introspection } from './graphql-env.d.ts';
import { storedKey } from './session.ts';

export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { DateTime: string; JSON: unknown };
  disableMasking: true;
}>();

export type { ResultOf, VariablesOf };

/** A refusal of the API: its message, and the status code of `extensions.code` when it gave one. */
export class ApiError extends Error {
  constructor(message: string, readonly code?: number) {
    super(message);
  }
}

/** Called when the API refuses the stored key (40100, 40101): the app then asks for a key again. */
let unauthorized: ((message: string) => void) | undefined;

export function onUnauthorized(handler: ((message: string) => void) | undefined): void {
  unauthorized = handler;
}

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: number | string } }[];
}

/**
 * Runs `document` with `variables` against /graphql.
 * @throws ApiError on a transport error, a non-JSON answer or any GraphQL error (the first one's message).
 */
export async function request<Data, Variables>(
  document: TadaDocumentNode<Data, Variables>,
  variables?: Variables,
): Promise<Data> {
  const key = storedKey();
  const response = await fetch(`${import.meta.env.BASE_URL.replace(/\/app\/$/, '')}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ query: print(document), variables: variables ?? {} }),
  });
  let body: GraphQLResponse<Data>;
  try {
    body = (await response.json()) as GraphQLResponse<Data>;
  } catch {
    throw new ApiError(`The API answered HTTP ${response.status}.`, response.status);
  }
  const first = body.errors?.[0];
  if (first) {
    const code = Number(first.extensions?.code);
    if (code === 40100 || code === 40101) unauthorized?.(first.message);
    throw new ApiError(first.message, Number.isFinite(code) ? code : undefined);
  }
  if (!body.data) throw new ApiError(`The API answered HTTP ${response.status} without data.`, response.status);
  return body.data;
}
