/**
 * The operator CLI (operations-contract.md "Admin commands") run as a real subprocess
 * (`tsx api/admin/cli.ts`) against this test's embedded PostgreSQL: the CLI finds the PGlite
 * socket in DATA_DIR and reuses it, so every call is an async execFile that leaves this process's
 * event loop free to serve it. Effects are checked over HTTP against buildApp.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../core/db/prisma.js';
import { PLANS } from '../../core/pricing.js';
import { repoRoot } from '../support/env.js';
import { apiClient } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const run = promisify(execFile);
const tsx = path.join(repoRoot, 'node_modules/.bin/tsx');
let app: TestApp;
let dataDir: string;
let prisma: PrismaClient;
let baseUrl: string;

beforeAll(async () => {
  app = await startTestApp({ monitors: false, env: { TRUST_PROXY: '1' } });
  ({ dataDir, prisma, url: baseUrl } = app);
});

afterAll(async () => {
  await app?.close();
});

/** Runs `admin <args>`; resolves with exit code, stdout and stderr (never rejects on a non-zero exit). */
async function admin(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(tsx, ['api/admin/cli.ts', ...args], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PUBLIC_BASE_URL: baseUrl, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Runs a command that must succeed and returns the one JSON value it printed. */
async function adminJson(args: string[], env?: Record<string, string>): Promise<any> {
  const result = await admin(args, env);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

async function accessRequest(body: Record<string, unknown>, ip: string): Promise<number> {
  const res = await fetch(`${baseUrl}/v1/public/access_request`, { method: 'POST', headers: { 'x-forwarded-for': ip }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return ((await res.json()) as any).tasks[0].result[0].id;
}

// Each CLI run starts tsx and checks migrations (~1-2 s); leave room on a loaded machine.
describe('account commands', { timeout: 120_000 }, () => {
  it('disable makes the next request fail with 401 / 40102; enable restores it', async () => {
    const created = await adminJson(['account', 'create', '--login', 'ops', '--email', 'ops@example.com']);
    const api = apiClient(baseUrl, { login: 'ops', key: created.api_key });
    expect((await api.get('/v1/retail/product/tasks_ready')).status).toBe(200);

    expect(await adminJson(['account', 'disable', '--login', 'ops'])).toEqual({ login: 'ops', disabled: true });
    const refused = await api.get('/v1/retail/product/tasks_ready');
    expect(refused.status).toBe(401);
    expect(refused.body.status_code).toBe(40102);

    expect(await adminJson(['account', 'enable', '--login', 'ops'])).toEqual({ login: 'ops', disabled: false });
    expect((await api.get('/v1/retail/product/tasks_ready')).status).toBe(200);
  });

  it('set-limits prints the effective limits (override, else the plan default)', async () => {
    const plan = PLANS.standard!;
    await adminJson(['account', 'create', '--login', 'limited', '--email', 'l@example.com']);
    expect(await adminJson(['account', 'set-limits', '--login', 'limited', '--requests-per-minute', '30'])).toEqual({
      login: 'limited',
      limits: { requests_per_minute: 30, tasks_per_minute: plan.tasksPerMinute },
    });
    expect(await adminJson(['account', 'set-limits', '--login', 'limited', '--tasks-per-minute', '90'])).toEqual({
      login: 'limited',
      limits: { requests_per_minute: 30, tasks_per_minute: 90 },
    });
    expect(await adminJson(['account', 'set-limits', '--login', 'limited', '--requests-per-minute', 'default'])).toEqual({
      login: 'limited',
      limits: { requests_per_minute: plan.requestsPerMinute, tasks_per_minute: 90 },
    });
    const row = await prisma.account.findUniqueOrThrow({ where: { login: 'limited' } });
    expect([row.requestsPerMinute, row.tasksPerMinute]).toEqual([null, 90]);
  });

  it('failures exit non-zero with a message on stderr and nothing on stdout', async () => {
    for (const args of [
      ['account', 'disable', '--login', 'nobody'],
      ['account', 'enable', '--login', 'nobody'],
      ['account', 'set-limits', '--login', 'nobody', '--tasks-per-minute', '5'],
    ]) {
      const result = await admin(args);
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.stderr).toContain('no account with login "nobody"');
      expect(result.stdout).toBe('');
    }
    // Refused while parsing arguments, before any database work: safe to run side by side.
    const values = ['0', '-3', '1.5', 'many'];
    const results = await Promise.all(values.map((v) => admin(['account', 'set-limits', '--login', 'limited', '--requests-per-minute', v])));
    results.forEach((result, i) => {
      expect(result.code, values[i]).not.toBe(0);
      expect(result.stderr).toMatch(/positive integer/);
    });
  });
});

describe('access-requests commands', { timeout: 120_000 }, () => {
  it('list shows stored requests, spam included with its status; approve issues a one-time link', async () => {
    const id = await accessRequest({ email: 'linus@example.com', name: 'Linus', use_case: 'research' }, '203.0.113.1');
    const spamId = await accessRequest({ email: 'bot@example.com', website: 'http://spam.example' }, '203.0.113.2');

    const listed = await adminJson(['access-requests', 'list']);
    expect(listed).toEqual(expect.arrayContaining([
      expect.objectContaining({ id, email: 'linus@example.com', name: 'Linus', company: null, use_case: 'research', ip: '203.0.113.1', status: 'pending', approved_at: null, login: null }),
      expect.objectContaining({ id: spamId, email: 'bot@example.com', ip: '203.0.113.2', status: 'spam' }),
    ]));
    expect(Date.parse(listed[0].created_at)).not.toBeNaN();

    const approved = await adminJson(['access-requests', 'approve', String(id)]);
    expect(approved).toEqual({ login: 'linus', credentials_url: expect.stringMatching(new RegExp(`^${baseUrl}/v1/public/credentials/[A-Za-z0-9_-]{43}$`)) });
    const first = await fetch(approved.credentials_url);
    expect(first.status).toBe(200);
    const creds = ((await first.json()) as any).tasks[0].result[0];
    expect(creds.login).toBe('linus');
    expect((await apiClient(baseUrl, { key: creds.api_key }).get('/v1/retail/product/tasks_ready')).status).toBe(200);
    expect((await fetch(approved.credentials_url)).status).toBe(404);

    const after = (await adminJson(['access-requests', 'list', '--status', 'approved'])).find((r: any) => r.id === id);
    expect(after).toMatchObject({ status: 'approved', login: 'linus', approved_at: expect.any(String), credentials_read_at: expect.any(String) });
  });

  it('refuses spam, unknown, already approved and malformed ids', async () => {
    const id = await accessRequest({ email: 'once@example.com' }, '203.0.113.3');
    await adminJson(['access-requests', 'approve', String(id)]);
    const spamId = await accessRequest({ email: 'bot2@example.com', website: 'x' }, '203.0.113.3');
    const cases: [string, RegExp][] = [[String(id), /already approved/], [String(spamId), /spam/], ['999999', /no access request/], ['abc', /positive integer/]];
    for (const [arg, message] of cases) {
      const result = await admin(['access-requests', 'approve', arg]);
      expect(result.code, arg).not.toBe(0);
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
    }
    expect((await prisma.accessRequest.findUniqueOrThrow({ where: { id: spamId } })).status).toBe('spam');
  });

  it('e-mails the link when SMTP_URL is set; a failed send still approves and is reported on stderr', async () => {
    const smtp = await fakeSmtpServer();
    try {
      const id = await accessRequest({ email: 'mailme@example.com' }, '203.0.113.4');
      const approved = await adminJson(['access-requests', 'approve', String(id)], { SMTP_URL: smtp.url, MAIL_FROM: 'ops@example.com' });
      expect(smtp.messages).toHaveLength(1);
      expect(smtp.messages[0]!.to).toEqual(['mailme@example.com']);
      expect(smtp.messages[0]!.from).toBe('ops@example.com');
      expect(smtp.messages[0]!.data.replace(/=\r\n/g, '')).toContain(approved.credentials_url);
    } finally {
      await smtp.close();
    }
    const id = await accessRequest({ email: 'nomail@example.com' }, '203.0.113.4');
    const result = await admin(['access-requests', 'approve', String(id)], { SMTP_URL: smtp.url });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ login: 'nomail' });
    expect(result.stderr).toMatch(/e-mail to nomail@example.com failed/);
  });
});

/** A minimal SMTP server (no TLS, no auth) recording each message's envelope and data. */
async function fakeSmtpServer(): Promise<{ url: string; messages: { from: string; to: string[]; data: string }[]; close(): Promise<void> }> {
  const messages: { from: string; to: string[]; data: string }[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffer = '';
    let inData = false;
    let current = { from: '', to: [] as string[], data: '' };
    socket.write('220 fake ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          messages.push(current);
          current = { from: '', to: [], data: '' };
          socket.write('250 queued\r\n');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') socket.write('250-fake\r\n250 8BITMIME\r\n');
        else if (verb === 'MAIL') { current.from = /<([^>]*)>/.exec(line)?.[1] ?? ''; socket.write('250 ok\r\n'); }
        else if (verb === 'RCPT') { current.to.push(/<([^>]*)>/.exec(line)?.[1] ?? ''); socket.write('250 ok\r\n'); }
        else if (verb === 'DATA') { inData = true; socket.write('354 go ahead\r\n'); }
        else if (verb === 'QUIT') { socket.end('221 bye\r\n'); return; }
        else socket.write('250 ok\r\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    messages,
    close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
  };
}
