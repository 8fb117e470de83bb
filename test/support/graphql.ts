/**
 * The GraphQL test client: posts operations over HTTP (the Koa app's /graphql) or straight into a
 * yoga instance (`yoga.fetch`, in-process: see `TestApp.gql`).
 */
import type { GraphQLServer } from '../../api/graphql/yoga.js';

export interface GqlResponse {
  status: number;
  body: any;
  headers: Headers;
}

export interface GqlClient {
  (query: string, variables?: Record<string, unknown>, init?: { method?: 'GET' | 'POST'; accept?: string }): Promise<GqlResponse>;
}

/** Basic (login + key) or Bearer (key) Authorization header value. */
export function authorization(auth: { login?: string; key: string }): string {
  return auth.login ? `Basic ${Buffer.from(`${auth.login}:${auth.key}`).toString('base64')}` : `Bearer ${auth.key}`;
}

/** A client of `target`: a base URL (HTTP to `<url>/graphql`) or a yoga instance (yoga.fetch). */
export function gqlClient(target: string | GraphQLServer, auth?: { login?: string; key: string }): GqlClient {
  return async (query, variables, init = {}) => {
    const method = init.method ?? 'POST';
    const headers: Record<string, string> = { accept: init.accept ?? 'application/json' };
    if (auth) headers.authorization = authorization(auth);
    let url = `${typeof target === 'string' ? target : 'http://localhost'}/graphql`;
    let body: string | undefined;
    if (method === 'GET') {
      url += `?${new URLSearchParams({ query, ...(variables ? { variables: JSON.stringify(variables) } : {}) })}`;
    } else {
      headers['content-type'] = 'application/json';
      body = JSON.stringify({ query, variables });
    }
    const res = typeof target === 'string' ? await fetch(url, { method, headers, body }) : await target.fetch(url, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* not JSON */ }
    return { status: res.status, body: parsed as any, headers: res.headers };
  };
}
