/**
 * Secrets stay out of the logs and out of the database (issue: money and abuse hardening). The
 * service's real logger (core/logger.ts, pino `redact`) writes into memory at level `trace` while
 * requests carry Basic and Bearer keys, create keys, read the webhook secret, and an approved
 * access request's one-time link is used: every request is logged, and no line holds a key, the
 * webhook secret, a credentials token or its link. The credentials payload is stored sealed: at no
 * time does any row of any table hold the new account's key in plaintext.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveAccessRequest } from '../../api/admin/access-requests.js';
import { createAccount } from '../../api/admin/accounts.js';
import { REDACTED } from '../../core/logger.js';
import { endpointLabel } from '../../worker/browser/browser-slot.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { captureLogs, type CapturedLogs } from '../support/log-capture.js';

let app: TestApp;
let logs: CapturedLogs;
/** Every secret the requests below handle; none may appear in a log line. */
const secrets = new Map<string, string>();

beforeAll(async () => {
  logs = captureLogs('trace');
  app = await startTestApp({ database: 'pglite', logger: logs.logger });
});

afterAll(async () => {
  await app?.close();
});

async function call(path: string, init: { method?: string; authorization?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.authorization) headers.authorization = init.authorization;
  const res = await fetch(app.url + path, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  return { status: res.status, body: await res.json() };
}

/** Every row of every table, each as its text form, one per line: what the database holds. */
async function databaseText(): Promise<string> {
  const tables = await app.prisma.$queryRawUnsafe<{ name: string }[]>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  const rows: string[] = [];
  for (const { name } of tables) {
    for (const row of await app.prisma.$queryRawUnsafe<{ text: string }[]>(`SELECT t::text AS text FROM "${name}" t`)) rows.push(`${name}: ${row.text}`);
  }
  return rows.join('\n');
}

describe('logs', () => {
  it('log every request with its client, status and code, but never a key, the webhook secret or a credentials link', async () => {
    const account = await createAccount(app.db, { login: 'secretive', email: 'secretive@example.com', balance: 5 });
    const basic = `Basic ${Buffer.from(`${account.login}:${account.api_key}`).toString('base64')}`;
    const bearer = `Bearer ${account.api_key}`;
    secrets.set('API key', account.api_key).set('Basic credentials', basic.slice(6));

    const userData = await call('/v1/appendix/user_data', { authorization: basic });
    expect(userData.status).toBe(200);
    secrets.set('webhook secret', userData.body.tasks[0].result[0].webhook_secret);
    const created = await call('/v1/appendix/keys', { method: 'POST', authorization: bearer, body: [{ label: 'ci' }] });
    secrets.set('key created over REST', created.body.tasks[0].result[0].key);
    const wrongKey = `${account.api_key.slice(0, -4)}zzzz`;
    secrets.set('a wrong key', wrongKey);
    expect((await call('/v1/appendix/user_data', { authorization: `Bearer ${wrongKey}` })).status).toBe(401);
    const graphql = await call('/graphql', {
      method: 'POST', authorization: bearer,
      body: { query: 'mutation { createKey(label: "g") { created { key } } } ', variables: {} },
    });
    secrets.set('key created over GraphQL', graphql.body.data.createKey.created.key);
    const me = await call('/graphql', { method: 'POST', authorization: basic, body: { query: '{ me { webhookSecret } }' } });
    expect(me.body.data.me.webhookSecret).toBe(secrets.get('webhook secret'));

    const submitted = await call('/v1/public/access_request', { method: 'POST', body: { email: 'grace@example.com' } });
    const approved = await approveAccessRequest(app.db, { id: submitted.body.tasks[0].result[0].id, baseUrl: app.url });
    secrets.set('credentials link', approved.credentials_url).set('credentials token', approved.credentials_url.split('/').at(-1)!);
    const credentials = await call(new URL(approved.credentials_url).pathname);
    expect(credentials.status).toBe(200);
    secrets.set('key of the credentials link', credentials.body.tasks[0].result[0].api_key);

    const text = logs.text();
    const leaked = [...secrets].filter(([, value]) => text.includes(value)).map(([name]) => name);
    expect(leaked).toEqual([]);

    const requests = logs.lines().filter((line) => line.msg === 'request');
    expect(requests.map((r) => `${r.req.method} ${r.res.status} ${r.res.code ?? '-'}`)).toEqual([
      'GET 200 20000', 'POST 200 20000', 'GET 401 40100', 'POST 200 -', 'POST 200 -', 'POST 200 20000', 'GET 200 20000',
    ]);
    for (const line of requests.filter((r) => r.req.headers.authorization !== undefined)) expect(line.req.headers.authorization).toBe(REDACTED);
    expect(requests.at(-1)!.req.url).toBe(`/v1/public/credentials/${REDACTED}`);
    expect(requests[0]).toMatchObject({ req: { ip: expect.stringMatching(/127\.0\.0\.1$/) }, requestId: expect.any(String), accountId: account.id, ms: expect.any(Number) });
  });

  it('redact secrets under their usual names wherever a line carries them', () => {
    const before = logs.text().length;
    logs.logger.error({ err: Object.assign(new Error('boom'), { authorization: 'Bearer s3cret-1' }), account: { api_key: 's3cret-2', webhook_secret: 's3cret-3' }, credentials_url: 's3cret-4', token: 's3cret-5' }, 'failure');
    const line = logs.text().slice(before);
    expect(line).toContain('failure');
    expect(line).not.toMatch(/s3cret/);
  });

  it('name a browser grid endpoint without its token', () => {
    expect(endpointLabel('ws://chrome:3000?token=grid-secret')).toBe('ws://chrome:3000/');
    expect(endpointLabel('wss://user:pass@grid.example.com/chromium?token=grid-secret&stealth')).toBe('wss://grid.example.com/chromium');
  });
});

describe('the credentials link', () => {
  it('stores the key sealed: no row holds it in plaintext before the link is used, nor anything of it after', async () => {
    const submitted = await call('/v1/public/access_request', { method: 'POST', body: { email: 'linus@example.com' } });
    const id = submitted.body.tasks[0].result[0].id as number;
    const { credentials_url } = await approveAccessRequest(app.db, { id, baseUrl: app.url });
    const token = credentials_url.split('/').at(-1)!;
    expect((await app.prisma.accessRequest.findUniqueOrThrow({ where: { id } })).credentialsPayload).toMatch(/^aes256gcm\./);
    const beforeUse = await databaseText();

    const credentials = await call(new URL(credentials_url).pathname);
    expect(credentials.status).toBe(200);
    const key = credentials.body.tasks[0].result[0].api_key as string;
    expect(key.length).toBeGreaterThan(40);
    const afterUse = await databaseText();
    // Only the key's hash is kept (api_keys); the token only as its hash (access_requests).
    for (const [moment, text] of [['before the link is used', beforeUse], ['after', afterUse]] as const) {
      expect(text.includes(key), `key ${moment}`).toBe(false);
      expect(text.includes(token), `token ${moment}`).toBe(false);
    }
    expect((await app.prisma.accessRequest.findUniqueOrThrow({ where: { id } })).credentialsPayload).toBeNull();
    // The link worked once: a second read is unknown.
    expect((await call(new URL(credentials_url).pathname)).status).toBe(404);
  });
});
