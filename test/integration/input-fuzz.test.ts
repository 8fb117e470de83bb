/**
 * Hostile text at every string input of every endpoint, REST and GraphQL, on the real PostgreSQL
 * (api-spec.md "Errors": 40501 names the field; HTTP 400 at request level, inside HTTP 200 at task
 * level). Text PostgreSQL cannot store (U+0000, unpaired surrogates) is refused naming the field
 * before any statement; values far past every bound are refused; control characters never cause a
 * 5xx. Whatever the answer, the balance moves by exactly the cost the response reports, and the
 * ledger still sums to it: a refused input costs nothing.
 *
 * The inputs are enumerated from the OpenAPI document (generated from the validating zod schemas)
 * and from the GraphQL schema; a new field is fuzzed by itself, and a new operation without a valid
 * request below fails the test until one is added.
 */
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { schema } from '../../api/graphql/schema/index.js';
import { createOpenApiDocument } from '../../api/rest/openapi/document.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { BAD_TEXTS, graphqlTargets, percentEncode, restTargets, withValue, type RestTarget } from '../support/fuzz.js';
import { accountMoney, type AccountMoney } from '../support/ledger.js';
import { describeNeeding, postgres } from '../support/prerequisites.js';

const ASIN = 'B0CHX1W1XY';
const postgresPrerequisite = await postgres();

let app: TestApp;
let account: { id: number; login: string; api_key: string };
let basic: string;
let nextIp = 0;

/** A valid request of every operation that takes string input; the fuzzed field replaces one of its values. */
const VALID: Record<string, { body?: unknown; query?: Record<string, string>; path?: Record<string, string>; auth?: false }> = {
  'POST /v1/retail/product/task_post': { body: [{ asin: ASIN, marketplace: 'com' }] },
  'POST /v1/retail/product/live': { body: [{ asin: ASIN, marketplace: 'com' }] },
  'POST /v1/retail/product/history': { body: [{ asin: ASIN, marketplace: 'com' }] },
  'POST /v1/retail/search/task_post': { body: [{ keyword: 'usb hub', marketplace: 'com' }] },
  'POST /v1/retail/search/live': { body: [{ keyword: 'usb hub', marketplace: 'com' }] },
  'POST /v1/retail/search/rank_history': { body: [{ keyword: 'usb hub', marketplace: 'com', asin: ASIN }] },
  'GET /v1/retail/search/task_get/{id}': { path: { id: randomUUID() } },
  'POST /v1/retail/product/stats': { body: [{ asin: ASIN, marketplace: 'com', days: 30, bucket: 'day' }] },
  'GET /v1/retail/product/history/export': { query: { asin: ASIN, marketplace: 'com', format: 'csv', date_from: '2026-01-01', date_to: '2026-01-31' } },
  'GET /v1/retail/product/batch_results/{batch_id}': { path: { batch_id: randomUUID() }, query: { format: 'jsonl' } },
  'POST /v1/retail/monitoring/add': { body: [{ asin: ASIN, marketplace: 'com', frequency: 'daily' }] },
  'POST /v1/retail/monitoring/delete': { body: [{ asin: ASIN, marketplace: 'de' }] },
  'GET /v1/retail/monitoring/list': { query: { limit: '10', offset: '0', tag: 't' } },
  'GET /v1/retail/monitoring/change_events': { query: { subscription_id: '1', limit: '10' } },
  'GET /v1/appendix/webhook_deliveries': { query: { limit: '10', kind: 'postback' } },
  'POST /v1/appendix/webhook_deliveries/{event_id}/redeliver': { path: { event_id: randomUUID() } },
  'GET /v1/appendix/usage': { query: { date_from: '2026-01-01', date_to: '2026-01-31' } },
  'GET /v1/appendix/ledger': { query: { date_from: '2026-01-01', date_to: '2026-01-31', limit: '10', offset: '0' } },
  'POST /v1/appendix/keys': { body: [{ label: 'ci' }] },
  'POST /v1/public/access_request': { body: { email: 'ada@example.com' }, auth: false },
  'GET /v1/retail/product/task_get/{id}': { path: { id: randomUUID() } },
  'DELETE /v1/appendix/keys/{key_id}': { path: { key_id: '999999' } },
  'GET /v1/public/credentials/{token}': { path: { token: 'unknown-token' }, auth: false },
  'GET /docs/assets/{file}': { path: { file: 'init.js' }, auth: false },
  'GET /graphql': { query: { query: '{ marketplaces { code } }', operationName: '' } },
  'POST /graphql': { body: { query: 'query Q { marketplaces { code } }', operationName: 'Q' } },
};

/**
 * What unstorable text in a field answers when it is not 40501 naming the field (by operation, or by
 * operation and field): task ids, batch ids and
 * credentials tokens are looked up, and anything that is not one is unknown (404 / 40400); a file
 * of the API reference is one of a fixed list; GraphQL refuses a document, operation name or
 * variables it cannot read with 40000 (HTTP 200 under `application/json`, as GraphQL over HTTP wants).
 */
const UNSTORABLE_ANSWER: Record<string, { status: number[]; code: number }> = {
  'GET /v1/retail/product/task_get/{id}': { status: [404], code: 40400 },
  'GET /v1/retail/search/task_get/{id}': { status: [404], code: 40400 },
  'POST /v1/appendix/webhook_deliveries/{event_id}/redeliver': { status: [404], code: 40400 },
  // Its `format` query is refused naming it, as any other field.
  'GET /v1/retail/product/batch_results/{batch_id} batch_id': { status: [404], code: 40400 },
  'GET /v1/public/credentials/{token}': { status: [404], code: 40400 },
  'GET /docs/assets/{file}': { status: [404], code: 40400 },
  'GET /graphql': { status: [200, 400], code: 40000 },
  'POST /graphql': { status: [200, 400], code: 40000 },
};

/** An answer; `cost` is the `X-Cost` header of a streamed export (USD), when there is one. */
interface Answer { status: number; body: any; cost?: number }

async function send(method: string, path: string, options: { body?: unknown; query?: Record<string, string>; auth?: false }): Promise<Answer> {
  const query = options.query ? `?${Object.entries(options.query).map(([k, v]) => `${k}=${percentEncode(v)}`).join('&')}` : '';
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', 'x-forwarded-for': `203.0.${(nextIp >> 8) & 255}.${nextIp++ & 255}` };
  if (options.auth !== false) headers.authorization = basic;
  const res = await fetch(app.url + path + query, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  let body: unknown = text;
  try { body = JSON.parse(text); } catch { /* not JSON (431 from Node, a file, an export) */ }
  const cost = res.headers.get('x-cost');
  return { status: res.status, body, ...(cost === null ? {} : { cost: Number(cost) }) };
}

/** USD the response says it charged: an envelope's `cost`, an export's `X-Cost`, a GraphQL payload's `cost`s. */
function reportedCost(answer: Answer): number {
  if (answer.cost !== undefined) return answer.cost;
  const body = answer.body;
  if (typeof body?.cost === 'number') return body.cost;
  return Object.values(body?.data ?? {}).reduce<number>((sum, payload: any) => sum + (typeof payload?.cost === 'number' ? payload.cost : 0), 0);
}

/** No 5xx, no masked GraphQL fault, and money moved by exactly what the answer reports. */
async function expectSafe(label: string, answer: Answer, before: AccountMoney): Promise<void> {
  expect(answer.status, label).toBeLessThan(500);
  const codes = [answer.body?.status_code, ...(answer.body?.tasks ?? []).map((t: any) => t.status_code), ...(answer.body?.errors ?? []).map((e: any) => e.extensions?.code)];
  expect(codes.filter((c) => typeof c === 'number' && c >= 50000), label).toEqual([]);
  const after = await accountMoney(app.prisma, { id: account.id });
  expect(Math.round((before.balance - after.balance) * 1e6), label).toBe(Math.round(reportedCost(answer) * 1e6));
  expect(Math.round(after.ledgerSum * 1e6), label).toBe(Math.round(after.balance * 1e6));
  if (reportedCost(answer) === 0) expect(after.entries.length, label).toBe(before.entries.length);
}

/** The request of `target` with `value` in its field. */
function requestWith(target: RestTarget, value: string, second: boolean) {
  const valid = VALID[target.operation]!;
  let path = target.path;
  for (const [name, v] of Object.entries(valid.path ?? {})) path = path.replace(`{${name}}`, percentEncode(target.location === 'path' && name === target.field ? value : v));
  const query = valid.query && (target.location === 'query' ? { ...valid.query, [target.field]: value } : valid.query);
  let body = valid.body;
  if (target.location === 'body') {
    const element = Array.isArray(body) ? body[0] : body;
    const bad = { ...(element as object), [target.field]: value };
    body = Array.isArray(body) ? (second ? [element, bad] : [bad]) : bad;
  }
  return { path, options: { body, query, auth: valid.auth } };
}

function expectRefusedNaming(label: string, answer: Answer, name: string, taskLevel: boolean): void {
  const message = `Invalid field: \`${name}\`.`;
  if (taskLevel) {
    expect(answer.status, label).toBe(200);
    expect(answer.body.tasks[1], label).toMatchObject({ status_code: 40501, status_message: message });
  } else {
    expect(answer.status, label).toBe(400);
    expect(answer.body, label).toMatchObject({ status_code: 40501, status_message: message });
  }
}

/** True when the answer refused the input: a request-level 4xx, a failed task, or a GraphQL error. */
function refused(answer: Answer): boolean {
  if (answer.status >= 400) return true;
  if ((answer.body?.errors ?? []).length > 0) return true;
  return (answer.body?.tasks ?? []).some((t: any) => t.status_code >= 40000);
}

beforeAll(async () => {
  if (postgresPrerequisite.missing) return;
  app = await startTestApp({ database: 'postgres', env: { TRUST_PROXY: '1' } });
  account = await createAccount(app.db, { login: 'fuzzed', email: 'fuzzed@example.com', balance: 1000 });
  // Thousands of requests within a minute: the per-minute limits (tested elsewhere) must not answer first.
  await app.prisma.account.update({ where: { id: account.id }, data: { requestsPerMinute: 1_000_000, tasksPerMinute: 1_000_000 } });
  basic = `Basic ${Buffer.from(`${account.login}:${account.api_key}`).toString('base64')}`;
  // A subscription, so nested subscription fields (observations) are resolved.
  await send('POST', '/v1/retail/monitoring/add', { body: [{ asin: ASIN, marketplace: 'com', frequency: 'daily' }] });
});

afterAll(async () => {
  await app?.close();
});

describeNeeding([postgresPrerequisite], 'hostile text at every input (PostgreSQL)', () => {
  // /mcp speaks JSON-RPC, not the REST envelope: its tools' hostile input (NUL, 1 MB strings) is
  // tested with the official MCP client in test/integration/mcp-tools.ts ("refuses as the REST call does").
  const targets = restTargets(createOpenApiDocument()).filter((t) => t.operation !== 'POST /mcp');

  it('knows a valid request of every REST operation with string input', () => {
    expect(targets.length).toBeGreaterThan(20);
    expect([...new Set(targets.map((t) => t.operation))].filter((op) => !VALID[op])).toEqual([]);
  });

  it.each(BAD_TEXTS.map((bad) => [bad.label, bad] as const))('REST, every string field: %s', async (_label, bad) => {
    for (const target of targets) {
      for (const second of target.arrayBody ? [false, true] : [false]) {
        const label = `${target.operation} ${target.location} ${target.field}${second ? ' (second task)' : ''}: ${bad.label}`;
        const before = await accountMoney(app.prisma, { id: account.id });
        const { path, options } = requestWith(target, bad.value, second);
        const answer = await send(target.method, path, options);
        await expectSafe(label, answer, before);
        // A URL cannot carry an unpaired surrogate: its bytes decode to U+FFFD, which is storable.
        if (bad.kind === 'unstorable' && (target.location === 'body' || bad.value.includes('\u0000'))) {
          const other = UNSTORABLE_ANSWER[`${target.operation} ${target.field}`] ?? UNSTORABLE_ANSWER[target.operation];
          if (other) {
            expect(other.status, label).toContain(answer.status);
            expect(answer.body?.status_code ?? answer.body?.errors?.[0]?.extensions?.code, label).toBe(other.code);
          }
          else expectRefusedNaming(label, answer, target.field, second);
        }
        if (bad.kind === 'huge') expect(refused(answer), label).toBe(true);
      }
    }
  });

  it('REST: other keys of a task object holding unstorable text are refused naming the key', async () => {
    const bodies = [...new Set(targets.filter((t) => t.location === 'body' && t.operation !== 'POST /graphql').map((t) => t.operation))];
    for (const operation of bodies) {
      for (const bad of BAD_TEXTS.filter((b) => b.kind === 'unstorable')) {
        for (const [key, value, name] of [['note', bad.value, 'note'], ['nested', { deep: [bad.value] }, 'nested'], [`k${bad.value}`, 1, 'ka\uFFFDb']] as const) {
          const label = `${operation} key ${JSON.stringify(key)}: ${bad.label}`;
          const valid = VALID[operation]!;
          const element = { ...(Array.isArray(valid.body) ? valid.body[0] : valid.body), [key]: value };
          const before = await accountMoney(app.prisma, { id: account.id });
          const answer = await send(operation.split(' ')[0]!, operation.split(' ')[1]!, { body: Array.isArray(valid.body) ? [element] : element, auth: valid.auth });
          await expectSafe(label, answer, before);
          expectRefusedNaming(label, answer, name, false);
        }
      }
    }
  });

  it('REST: a body nested far deeper than any request answers 400 / 40000, nothing charged', async () => {
    const before = await accountMoney(app.prisma, { id: account.id });
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const res = await fetch(`${app.url}/v1/retail/product/task_post`, {
      method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' },
      body: `[{"asin":"${ASIN}","marketplace":"com","x":${deep}}]`,
    });
    const answer = { status: res.status, body: await res.json() };
    await expectSafe('deep body', answer, before);
    expect(answer).toMatchObject({ status: 400, body: { status_code: 40000 } });
  });

  it('headers: Authorization and X-Request-Id with hostile bytes never answer 5xx; a login the database cannot store is 40100', async () => {
    // Raw bytes: fetch would refuse to send most of these headers. Node answers what it cannot
    // parse itself (400, 431) and may reset the connection right after: the status line is read.
    const raw = async (headers: string): Promise<number> => new Promise((resolve) => {
      const socket = net.connect(Number(new URL(app.url).port), '127.0.0.1');
      let data = '';
      socket.on('data', (chunk) => { data += chunk.toString('latin1'); });
      socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)));
      socket.on('error', () => undefined);
      socket.write(Buffer.from(`GET /v1/appendix/user_data HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`, 'latin1'));
    });
    const basicOf = (login: string) => `Basic ${Buffer.from(`${login}:${account.api_key}`, 'utf8').toString('base64')}`;
    const before = await accountMoney(app.prisma, { id: account.id });
    expect(await raw(`Authorization: ${basicOf(`fuz\u0000zed`)}\r\n`)).toBe(401);
    expect(await raw(`Authorization: Basic ${Buffer.from([0x66, 0xed, 0xa0, 0x80, 0x3a, 0x6b]).toString('base64')}\r\n`)).toBe(401);
    expect(await raw(`Authorization: Bearer \u00ff\u00fe\u0080${account.api_key}\r\n`)).toBe(401);
    expect(await raw(`Authorization: Bearer a\u0000b\r\n`)).toBe(400);
    expect(await raw(`Authorization: Bearer a\u0001\u001bb\r\n`)).toBe(400);
    expect(await raw(`Authorization: Bearer ${'k'.repeat(100_000)}\r\n`)).toBe(431);
    expect(await raw(`Authorization: ${basic}\r\nX-Request-Id: \u00ff\u0080\u00e9\r\n`)).toBe(200);
    const money = await accountMoney(app.prisma, { id: account.id });
    expect(money.balance).toBe(before.balance);
  });

  /** A query of every GraphQL field with string arguments: each argument passed as the variable of its name. */
  const GRAPHQL: Record<string, { document: string; variables: Record<string, unknown>; names?: Record<string, string>; unknownIsNull?: boolean; unknownCode?: number }> = {
    'Query.tasks': { document: 'query($tag: String, $from: String, $to: String, $after: String, $before: String) { tasks(tag: $tag, from: $from, to: $to, after: $after, before: $before) { totalCount edges { cursor } } }', variables: {} },
    'Query.searchTasks': { document: 'query($after: String, $before: String) { searchTasks(after: $after, before: $before) { totalCount edges { cursor } } }', variables: {} },
    'Query.observedProducts': { document: 'query($search: String) { observedProducts(search: $search, first: 5) { asin } }', variables: {} },
    'Query.task': { document: 'query($id: ID!) { task(id: $id) { id } }', variables: { id: randomUUID() }, unknownIsNull: true },
    'Query.subscriptions': { document: 'query($tag: String, $after: String, $before: String) { subscriptions(tag: $tag, after: $after, before: $before) { totalCount edges { cursor } } }', variables: {} },
    'MonitoringSubscription.changeEvents': { document: 'query($after: String, $before: String) { subscriptions(first: 1) { edges { node { changeEvents(after: $after, before: $before) { edges { cursor } } } } } }', variables: {} },
    'Query.webhookDeliveries': { document: 'query($after: String, $before: String) { webhookDeliveries(after: $after, before: $before) { edges { cursor } } }', variables: {} },
    'Mutation.redeliverWebhook': { document: 'mutation($eventId: ID!) { redeliverWebhook(eventId: $eventId) { eventId } }', variables: { eventId: randomUUID() }, unknownCode: 40400 },
    'MonitoringSubscription.observations': { document: 'query($after: String, $before: String) { subscriptions(first: 1) { edges { node { observations(after: $after, before: $before) { edges { cursor } } } } } }', variables: {} },
    'Account.usageReport': { document: 'query($from: String, $to: String) { me { usageReport(from: $from, to: $to) { from to } } }', variables: {}, names: { from: 'date_from', to: 'date_to' } },
    'Query.productHistory': {
      document: 'query($asin: String!, $marketplace: String!, $from: String, $to: String) { productHistory(asin: $asin, marketplace: $marketplace, from: $from, to: $to) { cost } }',
      variables: { asin: ASIN, marketplace: 'com' }, names: { from: 'date_from', to: 'date_to' },
    },
    'Query.product': {
      document: 'query($asin: String!, $marketplace: String!) { product(asin: $asin, marketplace: $marketplace) { cost stats { observations } } }',
      variables: { asin: ASIN, marketplace: 'com' },
    },
    'ProductAnalytics.stats': {
      document: `query($window: StatsWindow) { product(asin: "${ASIN}", marketplace: "com") { cost stats(window: $window) { observations } } }`,
      variables: { window: {} },
    },
    'ProductAnalytics.series': {
      document: `query($window: StatsWindow) { product(asin: "${ASIN}", marketplace: "com") { cost series(window: $window, bucket: DAY) { points { at } } } }`,
      variables: { window: {} },
    },
    'ProductAnalytics.changes': {
      document: `query($window: StatsWindow) { product(asin: "${ASIN}", marketplace: "com") { cost changes(window: $window) { field } } }`,
      variables: { window: {} },
    },
    'Mutation.postTasks': {
      document: 'mutation($tasks: [TaskPostInput!]!, $idempotencyKey: String) { postTasks(tasks: $tasks, idempotencyKey: $idempotencyKey) { cost results { statusCode statusMessage } } }',
      variables: { tasks: [{ asin: ASIN, marketplace: 'com' }] }, names: { postbackUrl: 'postback_url', pingbackUrl: 'pingback_url' },
    },
    'Query.search': {
      document: 'query($keyword: String!, $marketplace: String!) { search(keyword: $keyword, marketplace: $marketplace) { keyword } }',
      variables: { keyword: 'usb hub', marketplace: 'com' },
    },
    'Query.rankHistory': {
      document: 'query($keyword: String!, $marketplace: String!, $asin: String!) { rankHistory(keyword: $keyword, marketplace: $marketplace, asin: $asin) { cost } }',
      variables: { keyword: 'usb hub', marketplace: 'com', asin: ASIN },
    },
    'Mutation.postSearchTasks': {
      document: 'mutation($tasks: [SearchTaskPostInput!]!, $idempotencyKey: String) { postSearchTasks(tasks: $tasks, idempotencyKey: $idempotencyKey) { cost results { statusCode statusMessage } } }',
      variables: { tasks: [{ keyword: 'usb hub', marketplace: 'com' }] }, names: { postbackUrl: 'postback_url', pingbackUrl: 'pingback_url' },
    },
    'Mutation.addSubscriptions': {
      document: 'mutation($subscriptions: [SubscriptionInput!]!) { addSubscriptions(subscriptions: $subscriptions) { cost results { statusCode statusMessage } } }',
      variables: { subscriptions: [{ asin: ASIN, marketplace: 'com', frequency: 'daily' }] }, names: { externalUserId: 'external_user_id', alertUrl: 'alert_url', trackAsins: 'track_asins' },
    },
    'Mutation.deleteSubscriptions': {
      document: 'mutation($subscriptions: [SubscriptionSelector!]!) { deleteSubscriptions(subscriptions: $subscriptions) { cost results { statusCode statusMessage } } }',
      variables: { subscriptions: [{ asin: ASIN, marketplace: 'de' }] },
    },
    'Mutation.createKey': { document: 'mutation($label: String) { createKey(label: $label) { statusCode statusMessage } }', variables: {} },
  };
  const gqlTargets = graphqlTargets(schema);

  it('knows a query of every GraphQL field with string arguments', () => {
    expect([...new Set(gqlTargets.map((t) => t.coordinate))].filter((c) => !GRAPHQL[c])).toEqual([]);
  });

  it.each(BAD_TEXTS.map((bad) => [bad.label, bad] as const))('GraphQL, every string argument and input field: %s', async (_label, bad) => {
    for (const target of gqlTargets) {
      const template = GRAPHQL[target.coordinate]!;
      const label = `${target.coordinate} ${target.variablePath.join('.')}: ${bad.label}`;
      const before = await accountMoney(app.prisma, { id: account.id });
      const answer = await send('POST', '/graphql', { body: { query: template.document, variables: withValue(template.variables, target.variablePath, bad.value) } });
      await expectSafe(label, answer, before);
      if (bad.kind === 'unstorable' && template.unknownIsNull) expect(answer.body, label).toEqual({ data: { task: null } });
      else if (bad.kind === 'unstorable' && template.unknownCode) expect(answer.body.errors?.[0]?.extensions?.code, label).toBe(template.unknownCode);
      else if (bad.kind === 'unstorable') {
        expect(answer.body.errors?.[0], label).toMatchObject({ message: `Invalid field: \`${template.names?.[target.name] ?? target.name}\`.`, extensions: { code: 40501 } });
      }
      if (bad.kind === 'huge' && !template.unknownIsNull) expect(refused(answer), label).toBe(true);
    }
  });

  it.each(BAD_TEXTS.map((bad) => [bad.label, bad] as const))('REST and GraphQL, inside monitoring/add alert rules: %s', async (_label, bad) => {
    const rules: [unknown, string][] = [
      [{ type: bad.value }, 'alerts[0].type'], [{ type: 'price_below', value: bad.value }, 'alerts[0].value'], [{ type: 'content_change', [bad.value]: 1 }, 'alerts[0]'],
      [{ type: 'rank_below', value: 5, asin: bad.value }, 'alerts[0].asin'],
    ];
    for (const [rule, name] of rules) {
      const label = `monitoring/add alerts ${JSON.stringify(rule).slice(0, 60)}: ${bad.label}`;
      const before = await accountMoney(app.prisma, { id: account.id });
      const answer = await send('POST', '/v1/retail/monitoring/add', { body: [{ asin: ASIN, marketplace: 'com', frequency: 'daily' }, { asin: ASIN, marketplace: 'de', frequency: 'daily', alerts: [rule] }] });
      await expectSafe(label, answer, before);
      expect(answer.body.tasks?.[1]?.status_code, `${label}: ${JSON.stringify(answer.body).slice(0, 300)}`).toBe(40501);
      // Text the database cannot store is refused before the rule is read, naming the field.
      expect(answer.body.tasks[1].status_message, label).toMatch(bad.kind === 'unstorable' ? /^Invalid field: `alerts`\.$/ : new RegExp(`^Invalid field: \`${name.replace(/[[\].]/g, '\\$&')}\``));
    }
    const label = `GraphQL addSubscriptions alerts value: ${bad.label}`;
    const before = await accountMoney(app.prisma, { id: account.id });
    const answer = await send('POST', '/graphql', { body: { query: 'mutation($s: [SubscriptionInput!]!) { addSubscriptions(subscriptions: $s) { results { statusCode } } }', variables: { s: [{ asin: ASIN, marketplace: 'com', frequency: 'daily', alerts: [{ type: bad.value }] }] } } });
    await expectSafe(label, answer, before);
    expect(refused(answer), label).toBe(true);
  });
});

