/**
 * POST /v1/public/access_request (field bounds, spam trap, 5 per hour per IP) and the one-time
 * credentials link of an approval (api-spec.md "System and public", "Limits"), over HTTP against
 * buildApp on an embedded PostgreSQL (PGlite). Client addresses come from X-Forwarded-For.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveAccessRequest, loginBase } from '../../api/admin/access-requests.js';
import type { Db } from '../../core/db/db.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { apiClient } from '../support/http.js';

let app: TestApp;
let db: Db;
let prisma: PrismaClient;
let baseUrl: string;
let nextIp = 1;

/** A fresh client address for each caller, so tests do not share the per-IP window. */
const freshIp = () => `198.51.100.${nextIp++}`;

beforeAll(async () => {
  // Behind one trusted proxy (TRUST_PROXY=1), X-Forwarded-For gives each caller its own address.
  app = await startTestApp({ database: 'pglite', env: { TRUST_PROXY: '1' } });
  ({ db, prisma, url: baseUrl } = app);
});

afterAll(async () => {
  await app?.close();
});

/** POSTs an access request from `ip`; a string body is sent as is. */
async function submit(body: unknown, ip = freshIp()) {
  const res = await fetch(`${baseUrl}/v1/public/access_request`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const ok = { email: 'ada@example.com', name: 'Ada', company: 'Engines Ltd', use_case: 'price tracking', website: '' };

describe('POST /v1/public/access_request', () => {
  it('stores a valid request and answers one 20000 task with { id, status: received }', async () => {
    const res = await submit(ok);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status_code: 20000, tasks_count: 1, tasks_error: 0, cost: 0 });
    const task = res.body.tasks[0];
    expect(task).toMatchObject({ status_code: 20000, path: ['v1', 'public', 'access_request'], result_count: 1 });
    expect(task.result).toEqual([{ id: expect.any(Number), status: 'received' }]);
    const row = await prisma.accessRequest.findUniqueOrThrow({ where: { id: task.result[0].id } });
    expect(row).toMatchObject({ email: ok.email, name: 'Ada', company: 'Engines Ltd', useCase: 'price tracking', status: 'pending' });
    expect(row.ip).toMatch(/^198\.51\.100\./);
  });

  it('accepts every field at its bound and null optional fields', async () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(185)}.com`;
    expect(email).toHaveLength(254);
    const atBound = await submit({ email, name: 'n'.repeat(200), company: 'c'.repeat(200), use_case: 'u'.repeat(2000), website: null });
    expect(atBound.status).toBe(200);
    const nulls = await submit({ email: 'x@example.com', name: null, company: null, use_case: null, website: null });
    expect(nulls.status).toBe(200);
  });

  it('an over-long, mistyped, malformed or missing field → 400 / 40501 naming it', async () => {
    const cases: [unknown, string][] = [
      [{ ...ok, email: `${'a'.repeat(64)}@${'b'.repeat(186)}.com` }, 'email'],
      [{ ...ok, name: 'n'.repeat(201) }, 'name'],
      [{ ...ok, company: 'c'.repeat(201) }, 'company'],
      [{ ...ok, use_case: 'u'.repeat(2001) }, 'use_case'],
      [{ ...ok, website: 'w'.repeat(501) }, 'website'],
      [{ ...ok, email: 'not-an-email' }, 'email'],
      [{ ...ok, email: 'a@b' }, 'email'],
      [{ name: 'no email' }, 'email'],
      [{ ...ok, email: 42 }, 'email'],
      [{ ...ok, name: 5 }, 'name'],
      [{ ...ok, company: 'bad\u0000byte' }, 'company'],
    ];
    for (const [body, field] of cases) {
      const res = await submit(body);
      expect(res.status, field).toBe(400);
      expect(res.body).toMatchObject({ status_code: 40501, status_message: `Invalid field: \`${field}\`.`, tasks_count: 0 });
    }
  });

  it('counts characters, not UTF-16 units, against the bounds', async () => {
    expect((await submit({ ...ok, name: '😀'.repeat(200) })).status).toBe(200);
    expect((await submit({ ...ok, name: '😀'.repeat(201) })).body.status_message).toBe('Invalid field: `name`.');
  });

  it('accepts an array holding one object; other shapes → 400 / 40000', async () => {
    const one = await submit([ok]);
    expect(one.status).toBe(200);
    expect(one.body.tasks[0].result[0].status).toBe('received');
    for (const body of [[ok, ok], [], '{not json', '"ada@example.com"', 'null', '[1]', '[[{}]]']) {
      const res = await submit(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.status_code).toBe(40000);
    }
  });

  it('a wrong method → 405 / 40000', async () => {
    const res = await apiClient(baseUrl).get('/v1/public/access_request');
    expect(res.status).toBe(405);
    expect(res.body.status_code).toBe(40000);
  });

  it('spam trap: a filled website answers like a success and is stored as spam', async () => {
    const real = await submit(ok);
    const spam = await submit({ ...ok, email: 'bot@example.com', website: 'http://spam.example' });
    expect(spam.status).toBe(200);
    expect(Object.keys(spam.body.tasks[0].result[0])).toEqual(Object.keys(real.body.tasks[0].result[0]));
    expect(spam.body.tasks[0].result[0].status).toBe('received');
    const row = await prisma.accessRequest.findUniqueOrThrow({ where: { id: spam.body.tasks[0].result[0].id } });
    expect(row.status).toBe('spam');
  });

  it('the 6th request within the hour from one IP → 429 / 40202 with Retry-After; other IPs unaffected', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) {
      const body = i === 2 ? { ...ok, website: 'trap' } : ok; // spam counts too
      expect((await submit(body, ip)).status).toBe(200);
    }
    const limited = await submit(ok, ip);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ status_code: 40202, status_message: 'Rate limit exceeded.' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(await prisma.accessRequest.count({ where: { ip } })).toBe(5);
    expect((await submit(ok)).status).toBe(200);

    // Retry-After counts down to when the oldest request of the window leaves it.
    await prisma.$executeRaw`UPDATE access_requests SET created_at = now() - interval '59 minutes' WHERE ip = ${ip}`;
    const later = await submit(ok, ip);
    expect(later.status).toBe(429);
    expect(Number(later.headers.get('retry-after'))).toBeGreaterThan(50);
    expect(Number(later.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    await prisma.$executeRaw`UPDATE access_requests SET created_at = now() - interval '61 minutes' WHERE ip = ${ip}`;
    expect((await submit(ok, ip)).status).toBe(200);
  });
});

describe('approval and the one-time credentials link', () => {
  async function requestAndApprove(email: string) {
    const res = await submit({ ...ok, email });
    const id = res.body.tasks[0].result[0].id as number;
    return { id, ...(await approveAccessRequest(db, { id, baseUrl })) };
  }

  it('shows login and API key once; the key works at once; a second GET → 404 / 40400', async () => {
    const { id, login, credentials_url } = await requestAndApprove('grace.hopper+api@example.com');
    expect(login).toBe('grace.hopperapi');
    expect(credentials_url).toMatch(new RegExp(`^${baseUrl}/v1/public/credentials/[A-Za-z0-9_-]{43}$`));
    const first = await fetch(credentials_url);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const body = (await first.json()) as any;
    expect(body).toMatchObject({ status_code: 20000, tasks_count: 1 });
    const creds = body.tasks[0].result[0];
    expect(creds).toEqual({ login, api_key: expect.stringMatching(/^rda_live_[A-Za-z0-9_-]{40}$/) });

    const ready = await apiClient(baseUrl, { login, key: creds.api_key }).get('/v1/retail/product/tasks_ready');
    expect(ready.status).toBe(200);
    expect(ready.body.status_code).toBe(20000);

    const second = await fetch(credentials_url);
    expect(second.status).toBe(404);
    expect(((await second.json()) as any).status_code).toBe(40400);
    const row = await prisma.accessRequest.findUniqueOrThrow({ where: { id }, include: { account: true } });
    expect(row).toMatchObject({ status: 'approved', credentialsPayload: null });
    expect(row.credentialsReadAt).toBeInstanceOf(Date);
    expect(row.credentialsTokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.account).toMatchObject({ login, email: 'grace.hopper+api@example.com', plan: 'standard' });
    expect(Number(row.account!.balance)).toBe(0);
  });

  it('of two concurrent GETs only one reads the credentials', async () => {
    const { credentials_url } = await requestAndApprove('twice@example.com');
    const statuses = (await Promise.all([fetch(credentials_url), fetch(credentials_url)])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 404]);
  });

  it('an unknown token → 404 / 40400; an expired link (7 days) → 404 and its payload is erased', async () => {
    const unknown = await apiClient(baseUrl).get('/v1/public/credentials/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.status_code).toBe(40400);
    const { id, credentials_url } = await requestAndApprove('late@example.com');
    await prisma.accessRequest.update({ where: { id }, data: { approvedAt: new Date(Date.now() - 7 * 86_400_000 - 60_000) } });
    expect((await fetch(credentials_url)).status).toBe(404);
    expect((await prisma.accessRequest.findUniqueOrThrow({ where: { id } })).credentialsPayload).toBeNull();
  });

  it('makes logins unique and refuses spam, unknown and already approved requests', async () => {
    const a = await requestAndApprove('dup@example.com');
    const b = await requestAndApprove('DUP@example.org');
    expect([a.login, b.login]).toEqual(['dup', 'dup-2']);
    await expect(approveAccessRequest(db, { id: a.id, baseUrl })).rejects.toThrow(/already approved/);
    await expect(approveAccessRequest(db, { id: 987654, baseUrl })).rejects.toThrow(/no access request/);
    const spam = await submit({ ...ok, website: 'x' });
    await expect(approveAccessRequest(db, { id: spam.body.tasks[0].result[0].id, baseUrl })).rejects.toThrow(/spam/);
    expect(await prisma.account.count({ where: { login: { startsWith: 'ada' } } })).toBe(0);
  });

  it('derives logins from the local part', () => {
    expect(loginBase('Jean-Luc.Picard@example.com')).toBe('jean-luc.picard');
    expect(loginBase('"weird"@example.com')).toBe('weird');
    expect(loginBase('...@example.com')).toBe('user');
    expect(loginBase(`${'x'.repeat(70)}@example.com`)).toHaveLength(56);
  });
});
