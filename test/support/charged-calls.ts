/**
 * The charged calls of the fault-injection test (test/integration/charge-faults.postgres.test.ts):
 * one call of each kind of charged surface, sent to an API at `baseUrl`, and what its client got
 * back, with a seeded PRNG so that the same calls are made on every run.
 */

/** How long a call may take before the client gives up on it (ms). */
const CALL_TIMEOUT_MS = 30_000;

/** Products with stored observations (rows each); the largest exports in two elements (EXPORT_PAGE 1,000). */
export const PRODUCTS = [
  { asin: 'B0FAULT001', rows: 3 },
  { asin: 'B0FAULT002', rows: 12 },
  { asin: 'B0FAULT003', rows: 60 },
  { asin: 'B0FAULT004', rows: 1_200 },
];

/** The kinds of call: every charged surface (`_keyed`, `bulk` and `gql_post` send an idempotency key). */
export const KINDS = ['task_post', 'task_post_keyed', 'bulk', 'history', 'stats', 'export', 'gql_post', 'gql_stats'] as const;
export type Kind = (typeof KINDS)[number];

/** A small seeded PRNG (mulberry32): the same calls, keys and kill points on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One call as sent and what came back (`status` null: no answer, the connection failed). */
export interface Answer {
  /** The call's number: its elements are tagged `c<n>-<element>`. */
  n: number;
  kind: Kind;
  account: number;
  key: string | null;
  retry: boolean;
  status: number | null;
  body: any;
  /** Exports: the X-Cost header, and whether the body was read to its end. */
  xCost?: number;
  complete?: boolean;
}

/** The caller of `call`: an account's id and its `authorization` header value. */
export interface Caller {
  id: number;
  auth: string;
}

/**
 * The calls of an API at `baseUrl()` (read at each call: a restarted API may have another address).
 * Elements of call `n` are tagged `c<n>-<element>`.
 */
export function chargedCalls(baseUrl: () => string) {
  /** One HTTP call; null when no answer came (connection refused or cut, or the call timed out). */
  async function send(method: string, route: string, auth: string, body?: string, headers: Record<string, string> = {}) {
    try {
      const res = await fetch(baseUrl() + route, { method, headers: { authorization: auth, ...headers }, body, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
      const text = await res.text();
      let parsed: unknown = text;
      try { parsed = JSON.parse(text); } catch { /* not JSON */ }
      return { status: res.status, body: parsed as any };
    } catch {
      return { status: null, body: null };
    }
  }

  /** The calls of one kind: `key` is the idempotency key a keyed call sends (the same on its retry). */
  async function call(kind: Kind, account: Caller, n: number, key: string, random: () => number): Promise<Omit<Answer, 'n' | 'kind' | 'account' | 'key' | 'retry'>> {
    const product = PRODUCTS[Math.floor(random() * PRODUCTS.length)]!;
    const json = { 'content-type': 'application/json' };
    const elements = (count: number) => Array.from({ length: count }, (_, i) => ({ asin: PRODUCTS[(n + i) % PRODUCTS.length]!.asin, marketplace: 'com', tag: `c${n}-${i}` }));
    switch (kind) {
      case 'task_post':
        return send('POST', '/v1/retail/product/task_post', account.auth, JSON.stringify(elements(1 + (n % 3))), json);
      case 'task_post_keyed':
        return send('POST', '/v1/retail/product/task_post', account.auth, JSON.stringify(elements(1 + (n % 3))), { ...json, 'idempotency-key': key });
      case 'bulk': {
        const csv = ['asin,marketplace,tag', ...elements(3 + (n % 4)).map((e) => `${e.asin},com,${e.tag}`)].join('\n');
        return send('POST', '/v1/retail/product/task_post', account.auth, csv, { 'content-type': 'text/csv', 'idempotency-key': key });
      }
      case 'history':
        return send('POST', '/v1/retail/product/history', account.auth, JSON.stringify(elements(1 + (n % 2)).map(({ asin, marketplace }) => ({ asin, marketplace }))), json);
      case 'stats':
        return send('POST', '/v1/retail/product/stats', account.auth, JSON.stringify(elements(1 + (n % 2)).map(({ asin, marketplace }) => ({ asin, marketplace }))), json);
      case 'gql_post': {
        const query = 'mutation($t: [TaskPostInput!]!, $k: String) { postTasks(tasks: $t, idempotencyKey: $k) { cost results { id statusCode cost } } }';
        return send('POST', '/graphql', account.auth, JSON.stringify({ query, variables: { t: elements(1 + (n % 2)), k: key } }), json);
      }
      case 'gql_stats': {
        const query = `{ product(asin: "${product.asin}", marketplace: "com") { cost stats { observations } } }`;
        return send('POST', '/graphql', account.auth, JSON.stringify({ query }), json);
      }
      case 'export': {
        const abandon = random() < 0.4;
        try {
          const format = random() < 0.5 ? 'csv' : 'jsonl';
          const res = await fetch(`${baseUrl()}/v1/retail/product/history/export?asin=${product.asin}&marketplace=com&format=${format}`, {
            headers: { authorization: account.auth }, signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
          });
          const xCost = Number(res.headers.get('x-cost') ?? 0);
          if (res.status !== 200) return { status: res.status, body: await res.text().catch(() => null), xCost, complete: false };
          if (abandon) {
            // Read one chunk and drop the rest: the client went away midway.
            const reader = res.body!.getReader();
            await reader.read();
            await reader.cancel();
            return { status: 200, body: null, xCost, complete: false };
          }
          const text = await res.text();
          return { status: 200, body: null, xCost, complete: text.length > 0 };
        } catch {
          return { status: null, body: null };
        }
      }
    }
  }

  return { call };
}
